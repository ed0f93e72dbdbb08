package org.marl4j.examples.spring;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.WebRequest;

/**
 * BankController answers {@code GET /accounts/{id}} with an account's balance and
 * {@code POST /transfers?from=&to=&amount=} with the recorded transfer (201), or 404 for an unknown
 * account, 409 for insufficient funds, 400 for a malformed transfer. Each handler logs one line
 * after its JDBC calls, naming the request id it was given: beside the id the log pattern takes
 * from the MDC, it shows whether the thread's MDC still belongs to this request.
 */
@RestController
public class BankController {
    private static final Logger log = LoggerFactory.getLogger(BankController.class);
    private final Bank bank;

    /**
     * BankController(bank) serves bank's accounts.
     *
     * @param bank the accounts
     */
    public BankController(Bank bank) {
        this.bank = bank;
    }

    /**
     * account(id, requestId) answers an account's balance.
     *
     * @param id the account
     * @param requestId the request's id, from {@link RequestIdFilter}
     * @return the account and its balance
     */
    @GetMapping("/accounts/{id}")
    public Account account(@PathVariable("id") long id, @RequestAttribute(RequestIdFilter.ATTRIBUTE) String requestId) {
        long balance = bank.balance(id);
        log.info("account {} holds {} (request {})", id, balance, requestId);
        return new Account(id, balance, requestId);
    }

    /**
     * transfer(from, to, amount, requestId) moves money and answers the recorded transfer.
     *
     * @param from the account to debit
     * @param to the account to credit
     * @param amount how much
     * @param requestId the request's id, from {@link RequestIdFilter}
     * @return the transfer, with status 201
     */
    @PostMapping("/transfers")
    @ResponseStatus(HttpStatus.CREATED)
    public Bank.Transfer transfer(@RequestParam("from") long from, @RequestParam("to") long to, @RequestParam("amount") long amount,
                                  @RequestAttribute(RequestIdFilter.ATTRIBUTE) String requestId) {
        Bank.Transfer transfer = bank.transfer(from, to, amount, requestId);
        log.info("transfer {} moved {} from {} to {} (request {})", transfer.id(), amount, from, to, requestId);
        return transfer;
    }

    @ExceptionHandler
    ResponseEntity<String> unknownAccount(Bank.UnknownAccountException e, WebRequest request) {
        return refuse(HttpStatus.NOT_FOUND, e, request);
    }

    @ExceptionHandler
    ResponseEntity<String> insufficientFunds(Bank.InsufficientFundsException e, WebRequest request) {
        return refuse(HttpStatus.CONFLICT, e, request);
    }

    @ExceptionHandler
    ResponseEntity<String> malformed(IllegalArgumentException e, WebRequest request) {
        return refuse(HttpStatus.BAD_REQUEST, e, request);
    }

    private static ResponseEntity<String> refuse(HttpStatus status, RuntimeException e, WebRequest request) {
        Object requestId = request.getAttribute(RequestIdFilter.ATTRIBUTE, WebRequest.SCOPE_REQUEST);
        log.info("refused with {}: {} (request {})", status.value(), e.getMessage(), requestId);
        return ResponseEntity.status(status).body(e.getMessage());
    }

    /**
     * An account's balance, as answered.
     *
     * @param id the account
     * @param balance its balance
     * @param requestId the id of the request that read it
     */
    public record Account(long id, long balance, String requestId) {}
}
