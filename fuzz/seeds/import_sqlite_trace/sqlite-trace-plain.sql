CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, img BLOB);
CREATE TABLE log(note INTEGER);
CREATE TRIGGER notes_log AFTER INSERT ON notes BEGIN INSERT INTO log VALUES(new.id); END;
BEGIN;
INSERT INTO notes(title, body, img) VALUES('groceries', 'milk
eggs', x'00ff');
-- TRIGGER notes_log;
-- INSERT INTO log VALUES(new.id);
INSERT INTO notes(title, body) VALUES('it''s; fine', NULL);
-- TRIGGER notes_log;
-- INSERT INTO log VALUES(new.id);
COMMIT;
SELECT count(*) FROM notes WHERE title LIKE 'g%';
