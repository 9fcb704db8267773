package io.moses.adaptation;

import io.moses.adaptation.CallOutcome.CallFailure;
import io.moses.adaptation.CallOutcome.CallFault;
import io.moses.adaptation.CallOutcome.CallReply;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.xml.namespace.QName;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Sends SOAP requests to concrete services, in the SOAP version of the partner's WSDL binding, over
 * Jetty's HTTP client: pooled keep-alive connections, fully asynchronous (no thread waits on a
 * reply), a connect timeout and a per-call response timeout.
 *
 * <p>Threads (docs/benchmarks/2026-11-23-request-path.md, "Partner calls"): the caller's thread writes the request
 * and hands it to the client; the reply is read, parsed and its result completed on one of the
 * client's own threads, which then runs whatever follows (the engine's reply delivery). That
 * is one hand-off per call; no common pool, no thread per task. Replies are parsed straight
 * into the document implementation the caller keeps its documents in ({@link Xml.Parser}).
 *
 * <p>A cancelled call ends for the caller at once as {@link CallEnd#CANCELLED}. If its
 * request is already on the wire, its exchange finishes on its pooled connection and the reply is
 * discarded without being parsed, so the connection stays in the pool; a request still queued for
 * a connection is aborted. A withdrawn call (a 1-out-of-n loser) is aborted only while queued; on
 * the wire it ends with its own reply or timeout.
 */
public final class SoapClient implements AutoCloseable {
    static final String SOAP11 = SoapVersion.SOAP_11.envelopeNamespace;
    static final String SOAP12 = SoapVersion.SOAP_12.envelopeNamespace;
    /** Replies larger than this are refused (a protocol failure), not buffered. */
    static final int MAX_REPLY_BYTES = 16 << 20;

    private final HttpClient http;
    private final Xml.Parser replies;
    /** All replies buffered at once may hold at most this much: a reply that would pass it fails. */
    private final long replyBudget;
    private final AtomicLong repliesInMemory = new AtomicLong();

    /** A client with its own threads, replies parsed with the JDK's DOM. */
    public SoapClient(Duration connectTimeout) {
        this(connectTimeout, null, Xml.jdk());
    }

    /**
     * @param executor runs the client's I/O and everything that follows a reply; null for a
     *                 pool of its own. Never the common pool: on a 2-core machine
     *                 CompletableFuture falls back to a new thread per task
     */
    public SoapClient(Duration connectTimeout, Executor executor) {
        this(connectTimeout, executor, Xml.jdk());
    }

    /**
     * @param replies parses replies: give the one whose documents the reply bodies end up in
     *                (the engine's), so that nobody copies them again
     */
    public SoapClient(Duration connectTimeout, Executor executor, Xml.Parser replies) {
        // many calls at once may each be sent up to 16 MiB: together a quarter of the heap at most
        this(connectTimeout, executor, replies, Runtime.getRuntime().maxMemory() / 4);
    }

    /** @param replyBudget the bytes all replies being received may hold at once */
    SoapClient(Duration connectTimeout, Executor executor, Xml.Parser replies, long replyBudget) {
        this.replies = replies;
        this.replyBudget = replyBudget;
        QueuedThreadPool pool = null;
        if (executor == null) {
            pool = new QueuedThreadPool(Math.max(8, 4 * Runtime.getRuntime().availableProcessors()), 2);
            pool.setName("soap-client");
            pool.setDaemon(true);
        }
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(1);
        connector.setExecutor(executor != null ? executor : pool);
        connector.setConnectTimeout(connectTimeout);
        this.http = new HttpClient(new HttpClientTransportOverHTTP(connector));
        http.setExecutor(executor != null ? executor : pool);
        http.setFollowRedirects(false);
        http.setUserAgentField(null);
        // One client calls providers for every user: a cookie a provider set on one user's call
        // must not go with another's (and matching calls against a store cost CPU on each call).
        http.setHttpCookieStore(new org.eclipse.jetty.http.HttpCookieStore.Empty());
        http.getContentDecoderFactories().clear(); // no Accept-Encoding: replies are small
        http.setMaxConnectionsPerDestination(256);
        http.setMaxRequestsQueuedPerDestination(4096);
        http.setIdleTimeout(30_000);
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the HTTP client: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            http.stop();
        } catch (Exception e) {
            // stopping: nothing to do with a failure
        }
    }

    /** Posts {@code body} in a SOAP 1.1 envelope; the stage never completes exceptionally. */
    public CompletableFuture<CallOutcome> call(URI endpoint, String soapAction, Element body, Duration timeout) {
        return send(endpoint, SoapVersion.SOAP_11, soapAction, body, timeout).result();
    }

    /** Posts {@code body} in an envelope of {@code version}; the stage never completes exceptionally. */
    public CompletableFuture<CallOutcome> call(URI endpoint, SoapVersion version, String soapAction, Element body, Duration timeout) {
        return send(endpoint, version, soapAction, body, timeout).result();
    }

    /**
     * Runs {@code task} after {@code delayNanos} on the thread of the timer the client keeps its
     * own timeouts on: the task must be brief, and hand any real work to {@link #executor()}.
     */
    void schedule(Runnable task, long delayNanos) {
        http.getScheduler().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** The client's threads, which send the calls and read the replies. */
    Executor executor() {
        return http.getExecutor();
    }

    /** A call in flight: its result, and ways to abandon it ({@link #cancel}, {@link #withdraw}). */
    public record Call(CompletableFuture<CallOutcome> result, Runnable canceller, Runnable withdrawer) {
        public Call(CompletableFuture<CallOutcome> result, Runnable canceller) {
            this(result, canceller, canceller);
        }

        /** Ends the call for the caller at once (as {@link CallEnd#CANCELLED}, unless it already ended). */
        public void cancel() {
            canceller.run();
        }

        /**
         * Abandons the call if its request has not begun (as {@link #cancel}); one on the wire
         * goes on to its reply or its timeout, and its result still says which: a 1-out-of-n
         * loser's true latency, or the timeout of a provider that hangs (which a cancelled call
         * would hide from the ejection of hung providers).
         */
        public void withdraw() {
            withdrawer.run();
        }
    }

    /** Like {@link #call}, but the call can be cancelled (see the class comment). */
    public Call send(URI endpoint, SoapVersion version, String soapAction, Element body, Duration timeout) {
        return send(endpoint, version, soapAction, body, PayloadAdapter.Names.NONE, timeout);
    }

    /** {@link #send} of {@code body} renamed by a payload mapping's request names ({@link PayloadAdapter}) as it is written. */
    Call send(URI endpoint, SoapVersion version, String soapAction, Element body, PayloadAdapter.Names names, Duration timeout) {
        return send(endpoint, version, soapAction, body, names, timeout, java.util.Map.of());
    }

    /** {@link #send} with {@code headers} besides (a trace's {@code traceparent}). */
    Call send(URI endpoint, SoapVersion version, String soapAction, Element body, PayloadAdapter.Names names, Duration timeout,
              java.util.Map<String, String> headers) {
        String action = soapAction == null ? "" : soapAction;
        CompletableFuture<CallOutcome> result = new CompletableFuture<>();
        Request request;
        try {
            request = http.newRequest(endpoint)
                    .method(HttpMethod.POST)
                    .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .body(new BytesRequestContent(version.contentType(action), envelope(version, body, names)));
            if (version == SoapVersion.SOAP_11) request.headers(h -> h.put("SOAPAction", "\"" + action + "\""));
            if (!headers.isEmpty()) request.headers(h -> headers.forEach(h::put));
        } catch (IllegalArgumentException e) {
            result.complete(new CallFailure(CallEnd.CONNECT, "invalid endpoint " + endpoint + ": " + e.getMessage()));
            return new Call(result, () -> {});
        }
        // Whether the request got a connection and began to be sent. Jetty notifies onRequestBegin
        // only once the exchange has a connection, on the thread that then writes the request,
        // before its first byte; onComplete sees the flag through Jetty's request state (every
        // failure of a begun request goes through it), so false there proves nothing was sent.
        // Not onRequestCommit: Jetty notifies it only after the head and body were written, and
        // a provider that reads them and drops the connection can fail the call first.
        AtomicBoolean began = new AtomicBoolean();
        request.onRequestBegin(r -> began.set(true));
        request.send(new BufferingResponseListener(MAX_REPLY_BYTES) {
            private long held; // Jetty tells one exchange's listener one event at a time

            @Override
            public void onContent(org.eclipse.jetty.client.Response response, java.nio.ByteBuffer content) {
                int n = content.remaining();
                if (repliesInMemory.addAndGet(n) > replyBudget) {
                    repliesInMemory.addAndGet(-n);
                    response.abort(new java.io.IOException("the replies being received at once would hold more than "
                            + (replyBudget >> 20) + " MiB: this one was refused"));
                    return;
                }
                held += n;
                super.onContent(response, content);
            }

            @Override
            public void onComplete(org.eclipse.jetty.client.Result exchange) {
                try {
                    if (result.isDone()) return; // cancelled: the reply is discarded, not parsed
                    CallOutcome r = exchange.isFailed() ? failure(endpoint, exchange.getFailure(), timeout, began.get())
                            : read(endpoint, exchange.getResponse().getStatus(), this, replies);
                    result.complete(r);
                } finally {
                    repliesInMemory.addAndGet(-held); // parsed (or dropped): its bytes are no longer held
                    held = 0;
                }
            }
        });
        return new Call(result, () -> {
            if (result.complete(new CallFailure(CallEnd.CANCELLED, "call to " + endpoint + " cancelled"))
                    && !began.get())
                request.abort(new CancellationException("cancelled before it was sent"));
        }, () -> {
            if (!began.get() && result.complete(new CallFailure(CallEnd.CANCELLED, "call to " + endpoint + " cancelled")))
                request.abort(new CancellationException("cancelled before it was sent"));
        });
    }

    private static final String ENVELOPE_START_11 = envelopeStart(SoapVersion.SOAP_11);
    private static final String ENVELOPE_START_12 = envelopeStart(SoapVersion.SOAP_12);
    private static final String ENVELOPE_END = "</soapenv:Body></soapenv:Envelope>";

    private static String envelopeStart(SoapVersion v) {
        return "<soapenv:Envelope xmlns:soapenv=\"" + v.envelopeNamespace + "\"><soapenv:Body>";
    }

    /** The request's bytes: envelope and body written as one text, encoded once. */
    static byte[] envelope(SoapVersion version, Element body, PayloadAdapter.Names names) {
        StringBuilder text = new StringBuilder(512);
        text.append(version == SoapVersion.SOAP_12 ? ENVELOPE_START_12 : ENVELOPE_START_11);
        if (body != null) DomWriter.write(body, names, text); // null: an empty body (a message with no part)
        text.append(ENVELOPE_END);
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The kind of a failed exchange. Never sent (CONNECT) only when the request never began:
     * no connection was opened in time (refused, unreachable, connect or response timeout while
     * connecting or queued), so not a byte of it left. Once it began, any failure (a write
     * error, a dropped connection, garbage) may come after the provider read it: a timeout is
     * TIMEOUT, the rest PROTOCOL.
     */
    private static CallOutcome failure(URI endpoint, Throwable e, Duration timeout, boolean began) {
        if (e instanceof CancellationException) return new CallFailure(CallEnd.CANCELLED, "call to " + endpoint + " cancelled");
        boolean timedOut = e instanceof java.util.concurrent.TimeoutException;
        if (!began) {
            if (timedOut) return new CallFailure(CallEnd.CONNECT, "no connection to " + endpoint + " within " + timeout.toMillis() + " ms");
            if (e instanceof java.net.SocketTimeoutException)
                return new CallFailure(CallEnd.CONNECT, "cannot connect to " + endpoint + " within the connect timeout");
            if (e instanceof ConnectException || e instanceof java.nio.channels.UnresolvedAddressException
                    || e instanceof java.net.UnknownHostException || e instanceof java.net.NoRouteToHostException)
                return new CallFailure(CallEnd.CONNECT, "cannot connect to " + endpoint);
            return new CallFailure(CallEnd.CONNECT, "cannot connect to " + endpoint + ": " + message(e));
        }
        if (timedOut) return new CallFailure(CallEnd.TIMEOUT, "no reply from " + endpoint + " within " + timeout.toMillis() + " ms");
        if (e instanceof java.io.EOFException) // Jetty's message is a dump of the connection
            return new CallFailure(CallEnd.PROTOCOL, endpoint + " closed the connection before replying");
        return new CallFailure(CallEnd.PROTOCOL, "call to " + endpoint + " failed: " + message(e));
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static CallOutcome read(URI endpoint, int status, BufferingResponseListener content, Xml.Parser parser) {
        byte[] bytes = content.getContent();
        // 503 without a SOAP fault: declined before processing (a server or proxy with no
        // backend), so the call may go to another provider. With a SOAP fault it is the
        // provider's own answer, and a gateway may send it after its backend processed the call.
        if (status == 503 && !soapFault(bytes, parser))
            return new CallFailure(CallEnd.UNAVAILABLE, endpoint + " answered HTTP 503 (unavailable)");
        if (status == 503)
            return new CallFailure(CallEnd.PROTOCOL, endpoint + " answered HTTP 503 with a SOAP fault (it may have processed the call)");
        // 2xx with no body: a one-way operation's answer (202) or an empty reply
        if ((bytes == null || bytes.length == 0) && status / 100 == 2) return new CallReply(null);
        if (bytes == null || bytes.length == 0)
            return new CallFailure(CallEnd.PROTOCOL, endpoint + " answered HTTP " + status + " with no body");
        Document doc;
        try {
            doc = parser.parse(new java.io.ByteArrayInputStream(bytes));
        } catch (Exception e) {
            return new CallFailure(CallEnd.PROTOCOL, endpoint + " answered HTTP " + status + " with a body that is not XML");
        }
        Element env = doc.getDocumentElement();
        String ns = env.getNamespaceURI();
        if (!"Envelope".equals(env.getLocalName()) || !(SOAP11.equals(ns) || SOAP12.equals(ns)))
            return new CallFailure(CallEnd.PROTOCOL, endpoint + " answered HTTP " + status + " with a body that is not a SOAP envelope");
        Element body = child(env, ns, "Body");
        Element payload = body == null ? null : firstElement(body);
        if (payload == null) {
            if (status >= 300) return new CallFailure(CallEnd.PROTOCOL, endpoint + " answered HTTP " + status);
            return new CallReply(null); // an empty body: the reply of a message with no part
        }
        if ("Fault".equals(payload.getLocalName()) && ns.equals(payload.getNamespaceURI()))
            return fault(payload, ns);
        if (status >= 300) return new CallFailure(CallEnd.PROTOCOL, endpoint + " answered HTTP " + status);
        return new CallReply(payload);
    }

    /** True when the body is a SOAP envelope whose body is a fault. */
    private static boolean soapFault(byte[] bytes, Xml.Parser parser) {
        if (bytes == null || bytes.length == 0) return false;
        try {
            Element env = parser.parse(new java.io.ByteArrayInputStream(bytes)).getDocumentElement();
            String ns = env.getNamespaceURI();
            if (!"Envelope".equals(env.getLocalName()) || !(SOAP11.equals(ns) || SOAP12.equals(ns))) return false;
            Element body = child(env, ns, "Body");
            Element payload = body == null ? null : firstElement(body);
            return payload != null && "Fault".equals(payload.getLocalName()) && ns.equals(payload.getNamespaceURI());
        } catch (Exception e) {
            return false;
        }
    }

    private static CallOutcome fault(Element fault, String ns) {
        QName code;
        String reason;
        Element detail;
        if (SOAP11.equals(ns)) {
            Element c = child(fault, null, "faultcode");
            Element s = child(fault, null, "faultstring");
            Element d = child(fault, null, "detail");
            code = c == null ? new QName(SOAP11, "Server") : qname(c, c.getTextContent().trim());
            reason = s == null ? "" : s.getTextContent().trim();
            detail = d == null ? null : firstElement(d);
        } else {
            Element c = child(fault, ns, "Code");
            Element v = c == null ? null : child(c, ns, "Value");
            Element r = child(fault, ns, "Reason");
            Element t = r == null ? null : child(r, ns, "Text");
            Element d = child(fault, ns, "Detail");
            code = v == null ? new QName(SOAP12, "Receiver") : qname(v, v.getTextContent().trim());
            reason = t == null ? "" : t.getTextContent().trim();
            detail = d == null ? null : firstElement(d);
        }
        return new CallFault(code, reason, detail);
    }

    private static QName qname(Element context, String text) {
        int colon = text.indexOf(':');
        if (colon < 0) return new QName(text);
        String prefix = text.substring(0, colon);
        String uri = context.lookupNamespaceURI(prefix);
        return new QName(uri == null ? "" : uri, text.substring(colon + 1), prefix);
    }

    static Element child(Element parent, String ns, String local) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && local.equals(e.getLocalName()) && (ns == null || ns.equals(e.getNamespaceURI())))
                return e;
        return null;
    }

    static Element firstElement(Element parent) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e) return e;
        return null;
    }
}
