package dev.pocketbench.jvm.objectbox;

import io.objectbox.annotation.Entity;
import io.objectbox.annotation.Id;
import io.objectbox.annotation.Index;
import io.objectbox.annotation.Unique;

/**
 * A key-value record of pocketbench's workloads in ObjectBox: the key text unique and indexed
 * (reads and scans look it up), the fields in pocketbench's record encoding.
 */
@Entity
public class KvRecord {
    @Id
    public long id;
    @Index
    @Unique
    public String key;
    public byte[] value;

    public KvRecord() {}
}
