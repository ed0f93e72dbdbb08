package org.marl4j.examples.spring;

import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Objects;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Bank keeps accounts and moves money between them through {@link JdbcTemplate}: every call is a
 * blocking JDBC call on a pooled connection. A transfer is one transaction that locks both accounts
 * in id order (so two opposite transfers cannot deadlock), debits, credits and records the transfer
 * with the id of the request that asked for it; the sum of all balances never changes.
 */
@Service
public class Bank {
    /** How many accounts data.sql opens, with ids 1 to ACCOUNTS. */
    public static final int ACCOUNTS = 100;
    /** Each account's opening balance in data.sql. */
    public static final long OPENING_BALANCE = 1_000;

    private final JdbcTemplate jdbc;

    /**
     * Bank(jdbc) keeps its accounts in jdbc's database.
     *
     * @param jdbc the database holding the tables of schema.sql
     */
    public Bank(JdbcTemplate jdbc) {
        this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
    }

    /**
     * balance(account) reads an account's balance.
     *
     * @param account the account's id
     * @return its balance
     * @throws UnknownAccountException if there is no such account
     */
    public long balance(long account) {
        try {
            Long balance = jdbc.queryForObject("SELECT balance FROM account WHERE id = ?", Long.class, account);
            return Objects.requireNonNull(balance, "balance");
        } catch (EmptyResultDataAccessException e) {
            throw new UnknownAccountException(account);
        }
    }

    /**
     * transfer(from, to, amount, requestId) moves amount from one account to another in one
     * transaction and records it.
     *
     * @param from the account to debit
     * @param to the account to credit, not from
     * @param amount how much, more than 0
     * @param requestId the id of the request that asked for it, stored with the transfer
     * @return the recorded transfer
     * @throws IllegalArgumentException if from equals to or amount is not positive
     * @throws UnknownAccountException if either account does not exist
     * @throws InsufficientFundsException if from holds less than amount (nothing is changed)
     */
    @Transactional
    public Transfer transfer(long from, long to, long amount, String requestId) {
        if (from == to) {
            throw new IllegalArgumentException("a transfer needs two different accounts, got " + from + " twice");
        }
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be more than 0, got " + amount);
        }
        lock(Math.min(from, to));
        lock(Math.max(from, to));
        if (jdbc.update("UPDATE account SET balance = balance - ? WHERE id = ? AND balance >= ?", amount, from, amount) == 0) {
            throw new InsufficientFundsException(from, amount);
        }
        jdbc.update("UPDATE account SET balance = balance + ? WHERE id = ?", amount, to);
        KeyHolder key = new GeneratedKeyHolder();
        jdbc.update(connection -> {
            PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO transfer (from_account, to_account, amount, request_id) VALUES (?, ?, ?, ?)",
                    Statement.RETURN_GENERATED_KEYS);
            insert.setLong(1, from);
            insert.setLong(2, to);
            insert.setLong(3, amount);
            insert.setString(4, requestId);
            return insert;
        }, key);
        return new Transfer(Objects.requireNonNull(key.getKey(), "generated id").longValue(), from, to, amount, requestId);
    }

    /** lock(account) takes the account's row lock until the transaction ends. */
    private void lock(long account) {
        try {
            jdbc.queryForObject("SELECT id FROM account WHERE id = ? FOR UPDATE", Long.class, account);
        } catch (EmptyResultDataAccessException e) {
            throw new UnknownAccountException(account);
        }
    }

    /**
     * A recorded transfer.
     *
     * @param id its id in the transfer table
     * @param from the debited account
     * @param to the credited account
     * @param amount how much moved
     * @param requestId the id of the request that asked for it
     */
    public record Transfer(long id, long from, long to, long amount, String requestId) {}

    /** UnknownAccountException: a request named an account that does not exist. */
    public static final class UnknownAccountException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownAccountException(long account) {
            super("no account " + account + ": accounts are 1 to " + ACCOUNTS);
        }
    }

    /** InsufficientFundsException: the debited account holds less than the amount; nothing changed. */
    public static final class InsufficientFundsException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InsufficientFundsException(long account, long amount) {
            super("account " + account + " holds less than " + amount);
        }
    }
}
