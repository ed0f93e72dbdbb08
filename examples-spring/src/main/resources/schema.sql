-- Accounts hold money; a transfer moves some from one account to another. The sum of all balances
-- never changes, and each balance equals its opening balance minus what it sent plus what it got.
CREATE TABLE account (
    id      BIGINT PRIMARY KEY,
    balance BIGINT NOT NULL CHECK (balance >= 0)
);

CREATE TABLE transfer (
    id           BIGINT AUTO_INCREMENT PRIMARY KEY,
    from_account BIGINT NOT NULL REFERENCES account (id),
    to_account   BIGINT NOT NULL REFERENCES account (id),
    amount       BIGINT NOT NULL CHECK (amount > 0),
    request_id   VARCHAR(64) NOT NULL
);
