package org.marl4j.examples.spring;

import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * RequestIdFilter gives every request an id, from its {@value #HEADER} header or a generated one,
 * and keeps it in the logging MDC (key {@value #MDC_KEY}) while the request is handled, so that the
 * log pattern prints it in every line; it also answers the id in the same header and hands it to
 * handlers as the request attribute {@value #ATTRIBUTE}. It runs before every other filter and
 * clears the MDC when the request ends, so that the next request served by the same thread starts
 * without it.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestIdFilter extends OncePerRequestFilter {
    /** The header a client may send its request id in; the response carries the id in it too. */
    public static final String HEADER = "X-Request-Id";
    /** The MDC key of the request id, which the log pattern prints. */
    public static final String MDC_KEY = "requestId";
    /** The request attribute holding the id, for handlers that log or store it. */
    public static final String ATTRIBUTE = "org.marl4j.examples.spring.requestId";
    /** Ids a client may choose: short and plain, so that no header can forge a log line. */
    private static final Pattern ACCEPTED = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Logger log = LoggerFactory.getLogger(RequestIdFilter.class);

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String sent = request.getHeader(HEADER);
        String id = sent != null && ACCEPTED.matcher(sent).matches() ? sent : UUID.randomUUID().toString();
        long start = System.nanoTime();
        MDC.put(MDC_KEY, id);
        try {
            request.setAttribute(ATTRIBUTE, id);
            response.setHeader(HEADER, id);
            chain.doFilter(request, response);
        } finally {
            log.info("{} {} answered {} in {} µs", request.getMethod(), request.getRequestURI(), response.getStatus(),
                    (System.nanoTime() - start) / 1_000);
            MDC.remove(MDC_KEY);
        }
    }
}
