"""An app for `pocketbench advise` to advise (docs/advise.md): 20 000 contacts, 300 lookups by
an unindexed column, then 60 more by city."""

import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, age INTEGER)")
db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
              INSERT INTO contacts(name, email, city, age)
              SELECT 'name' || i, 'user' || i || '@example.com', 'city' || (i % 100), i % 90 FROM n""")
db.commit()
for i in range(1, 301):
    db.execute("SELECT id, name FROM contacts WHERE email = ?", ("user%d@example.com" % (i * 61),)).fetchall()
for i in range(1, 31):
    db.execute("SELECT name FROM contacts WHERE city = ? AND age > ?", ("city%d" % i, 80)).fetchall()
    db.execute("SELECT name, age FROM contacts WHERE city = ? ORDER BY age", ("city%d" % i,)).fetchall()
db.close()
