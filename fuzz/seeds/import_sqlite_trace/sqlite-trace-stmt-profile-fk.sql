PRAGMA foreign_keys=ON;
PRAGMA foreign_keys=ON; -- 0 ns
CREATE TABLE p(id INTEGER PRIMARY KEY, k INTEGER UNIQUE);
CREATE TABLE p(id INTEGER PRIMARY KEY, k INTEGER UNIQUE); -- 55000000 ns
CREATE TABLE c(id INTEGER PRIMARY KEY, pk INTEGER REFERENCES p(k) ON UPDATE CASCADE ON DELETE SET NULL, note TEXT);
CREATE TABLE c(id INTEGER PRIMARY KEY, pk INTEGER REFERENCES p(k) ON UPDATE CASCADE ON DELETE SET NULL, note TEXT); -- 20000000 ns
CREATE TABLE audit(x);
CREATE TABLE audit(x); -- 20000000 ns
CREATE TRIGGER p_bd BEFORE DELETE ON p BEGIN INSERT INTO audit VALUES ('bd ' || OLD.id); END;
CREATE TRIGGER p_bd BEFORE DELETE ON p BEGIN INSERT INTO audit VALUES ('bd ' || OLD.id); END; -- 20000000 ns
CREATE TRIGGER c_au AFTER UPDATE ON c
  WHEN NEW.note IS NOT NULL
BEGIN
  INSERT INTO audit
    VALUES (CASE WHEN NEW.pk IS NULL THEN 'null'
                 ELSE 'set' END);
END;
CREATE TRIGGER c_au AFTER UPDATE ON c
  WHEN NEW.note IS NOT NULL
BEGIN
  INSERT INTO audit
    VALUES (CASE WHEN NEW.pk IS NULL THEN 'null'
                 ELSE 'set' END);
END; -- 17000000 ns
INSERT INTO p(k) VALUES (10), (20), (30);
INSERT INTO p(k) VALUES (10), (20), (30); -- 18000000 ns
INSERT INTO c(pk, note) VALUES (10, 'a'), (10, 'b'), (20, 'c'), (30, NULL);
INSERT INTO c(pk, note) VALUES (10, 'a'), (10, 'b'), (20, 'c'), (30, NULL); -- 20000000 ns
UPDATE p SET k = k + 1;
UPDATE p SET k = k + 1;
-- TRIGGER c_au;
-- INSERT INTO audit     VALUES (CASE WHEN NEW.pk IS NULL THEN 'null'                  ELSE 'set' END);
-- TRIGGER c_au;
-- INSERT INTO audit     VALUES (CASE WHEN NEW.pk IS NULL THEN 'null'                  ELSE 'set' END);
UPDATE p SET k = k + 1;
-- TRIGGER c_au;
-- INSERT INTO audit     VALUES (CASE WHEN NEW.pk IS NULL THEN 'null'                  ELSE 'set' END);
UPDATE p SET k = k + 1;
-- TRIGGER c_au;
UPDATE p SET k = k + 1; -- 12000000 ns
DELETE FROM p WHERE k > 15;
-- TRIGGER p_bd;
-- INSERT INTO audit VALUES ('bd ' || OLD.id);
DELETE FROM p WHERE k > 15;
-- TRIGGER c_au;
-- INSERT INTO audit     VALUES (CASE WHEN NEW.pk IS NULL THEN 'null'                  ELSE 'set' END);
-- TRIGGER p_bd;
-- INSERT INTO audit VALUES ('bd ' || OLD.id);
DELETE FROM p WHERE k > 15;
-- TRIGGER c_au;
DELETE FROM p WHERE k > 15; -- 20000000 ns
/* trailing comment */ SELECT 1;
/* trailing comment */ SELECT 1; -- 0 ns
DELETE FROM p WHERE k > 15;
DELETE FROM p WHERE k > 15; -- 0 ns
