"""A small notes app over Python's sqlite3 module, for `pocketbench capture` to record.

Two connections, as an app with a writer and a reader has: the writer creates the schema,
adds notes one by one (autocommit) and then a batch in one transaction; the reader lists the
newest notes and searches them. Run it again and it adds more notes to app.db.
"""

import sqlite3

writer = sqlite3.connect("app.db", isolation_level=None)
writer.execute(
    "CREATE TABLE IF NOT EXISTS notes("
    "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, created INTEGER)"
)
for i in range(5):
    writer.execute(
        "INSERT INTO notes(title, body, created) VALUES (?, ?, ?)",
        (f"note {i}", "buy milk" if i % 2 else "call home", 1700000000 + i),
    )
writer.execute("BEGIN")
for i in range(5, 20):
    writer.execute(
        "INSERT INTO notes(title, body, created) VALUES (?, ?, ?)",
        (f"note {i}", "draft", 1700000000 + i),
    )
writer.execute("COMMIT")

reader = sqlite3.connect("app.db")
newest = reader.execute("SELECT id, title FROM notes ORDER BY created DESC LIMIT 10").fetchall()
found = reader.execute("SELECT count(*) FROM notes WHERE body LIKE ?", ("%milk%",)).fetchone()
print(f"{len(newest)} newest notes, {found[0]} about milk")
writer.close()
reader.close()
