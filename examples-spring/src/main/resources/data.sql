-- 100 accounts opened with 1,000 each: see Bank.ACCOUNTS and Bank.OPENING_BALANCE.
INSERT INTO account (id, balance) SELECT x, 1000 FROM SYSTEM_RANGE(1, 100);
