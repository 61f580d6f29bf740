#!/usr/bin/env python3
"""The SQLite ledger's send table in two layouts, side by side in one run (Python's sqlite3, the
same statements the ledger runs a send: the facts read by number, the reservation's insert in a
transaction of 32, the delivery's update in another):
  three  the key (account, campaign_id, csv_row, wa_id), sends_by_number and sends_by_time, as
         wacamp keeps it;
  two    the key (account, wa_id, campaign_id, csv_row), which serves the reads by number, and
         sends_by_time: one B-tree fewer to write.
Prints CPU µs a send and bytes a send (the file after a checkpoint) for each, twice.
  python3 bench/ledger_layout.py        (files in /tmp/idx-*.sqlite)
"""
import sqlite3, time, os, random
def run(layout, n=60000, batch=32):
    path=f'/tmp/idx-{layout}.sqlite'
    for s in ('','-wal','-shm'):
        try: os.remove(path+s)
        except FileNotFoundError: pass
    db=sqlite3.connect(path, isolation_level=None)
    db.execute('PRAGMA journal_mode=WAL'); db.execute('PRAGMA synchronous=NORMAL')
    if layout=='three':
        db.execute("CREATE TABLE sends (account TEXT NOT NULL, campaign_id INTEGER NOT NULL, csv_row INTEGER NOT NULL, wa_id TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (account, campaign_id, csv_row, wa_id)) WITHOUT ROWID")
        db.execute("CREATE INDEX sends_by_number ON sends (account, wa_id, at)")
    else:
        db.execute("CREATE TABLE sends (account TEXT NOT NULL, campaign_id INTEGER NOT NULL, csv_row INTEGER NOT NULL, wa_id TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (account, wa_id, campaign_id, csv_row)) WITHOUT ROWID")
    db.execute("CREATE INDEX sends_by_time ON sends (account, at, wa_id)")
    t=time.process_time()
    at=1765000000000
    for b in range(0,n,batch):
        db.execute('BEGIN IMMEDIATE')
        for i in range(b,b+batch):
            w=str(919800000000+ (i*7919)%n)
            # facts read
            hint = 'INDEXED BY sends_by_number' if layout=='three' else ''
            list(db.execute(f"SELECT campaign_id, csv_row, at, state, attempt FROM sends {hint} WHERE account='bench' AND wa_id=?", (w,)))
            db.execute("INSERT INTO sends VALUES ('bench', 1, ?, ?, ?, 'reserved', 1)", (i+1, w, at+i))
        db.execute('COMMIT')
        db.execute('BEGIN IMMEDIATE')
        for i in range(b,b+batch):
            w=str(919800000000+ (i*7919)%n)
            db.execute("UPDATE sends SET state='sent' WHERE account='bench' AND campaign_id=1 AND csv_row=? AND wa_id=?", (i+1, w))
        db.execute('COMMIT')
    cpu=time.process_time()-t
    db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    size=os.path.getsize(path)
    print(layout, f'{cpu*1e6/n:.1f} us CPU a send', f'{size/n:.0f} bytes a send')
    db.close()
for l in ('three','two','three','two'):
    run(l)
