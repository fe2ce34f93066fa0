UPDATE notes SET body = 'bread' WHERE id = 1; -- 11000000 ns
SELECT id, title FROM notes ORDER BY id; -- 0 ns
DELETE FROM log; -- 1000000 ns
