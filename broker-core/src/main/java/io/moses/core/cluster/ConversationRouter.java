package io.moses.core.cluster;

import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.Conversations;
import io.moses.core.engine.ProvidedService;
import io.moses.core.frontend.ConversationForwarding;
import io.moses.core.frontend.HopSeal;
import io.moses.mdal.ConversationOwner;
import io.moses.mdal.KnowledgeBase;
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Conversations across replicas. Instances live in the memory of the replica that started them;
 * each correlation value an instance initiates is registered in the knowledge base with this
 * replica as its owner, and removed when the instance ends. A message whose values match no
 * local instance but belong to another replica is forwarded there over HTTP (its SOAP body,
 * credentials and SOAPAction, marked with {@link ConversationForwarding#HOP_HEADER} so it is
 * never forwarded twice, and sealed ({@link HopSeal}) so the owner does not police it against the
 * caller's agreed rate a second time), and the owner's answer is the caller's. An owner that is gone
 * answers with a SOAP fault at once: its in-memory instances died with it. A durable instance is in
 * the knowledge base: its message waits until a survivor took the instance over
 * ({@link DurableTakeovers}), then goes there.
 * A conversation belongs to the
 * user whose message started its instance: another user's message for it (to continue it, or to
 * start a competing instance on its correlation value) is refused with a client fault, on the
 * replica it reaches and on the owner alike.
 *
 * <p>Cost for processes without correlation: one look-up of the operation's correlation sets
 * in the compiled process, no knowledge-base access.
 */
public final class ConversationRouter implements ConversationForwarding, Conversations, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConversationRouter.class);
    private static final String SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
    private static final String SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

    private final BpelEngine engine;
    private final KnowledgeBase kb;
    private final String replica;
    private final java.util.concurrent.atomic.LongAdder noInstance = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder awaitedTakeover = new java.util.concurrent.atomic.LongAdder();
    /** How long a message of a durable conversation whose replica does not answer waits for the takeover. */
    private final Duration takeoverWait;
    private final java.util.function.Supplier<String> address;
    private final Duration grace;
    private final HopSeal seal;
    /** The broker's wall clock: the time in a forwarded message's seal. */
    private final java.time.Clock wall;
    private final HttpClient http;
    /** "process key" -> local instance and the user who started it. */
    private final Map<String, Local> local = new ConcurrentHashMap<>();

    private record Local(long instance, String user) {}
    private final Map<Long, List<String>> keysOfInstance = new ConcurrentHashMap<>();
    /** Messages forwarded to their owner replica, and those whose owner was gone (answered with a fault). */
    private final java.util.concurrent.atomic.LongAdder forwarded = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder ownerGone = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder refusedForeign = new java.util.concurrent.atomic.LongAdder();
    private final ExecutorService forgetting = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "conversation-owners");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param replica this replica's name
     * @param address where the other replicas reach this one (base URL of its HTTP front-end)
     * @param grace   how long a message that can only go to an existing instance waits for
     *                its owner to be registered (a one-way start whose instance has not yet run)
     * @param seal    what the forwarded messages are sealed with (the cluster's shared secret)
     * @param wall    the broker's wall clock, the seal's time
     */
    public ConversationRouter(BpelEngine engine, KnowledgeBase kb, String replica, java.util.function.Supplier<String> address,
                              Duration grace, HopSeal seal, java.time.Clock wall) {
        this(engine, kb, replica, address, grace, seal, wall, null, Duration.ofSeconds(30));
    }

    /**
     * @param tls          what the calls to https owners trust (the replicas' certificates), or null: the JDK's defaults
     * @param takeoverWait how long a message of a durable conversation whose replica does not
     *                     answer waits for a survivor to take its instance over
     */
    public ConversationRouter(BpelEngine engine, KnowledgeBase kb, String replica, java.util.function.Supplier<String> address,
                              Duration grace, HopSeal seal, java.time.Clock wall, javax.net.ssl.SSLContext tls, Duration takeoverWait) {
        this.engine = engine;
        this.takeoverWait = takeoverWait;
        this.kb = kb;
        this.replica = replica;
        this.address = address;
        this.grace = grace;
        this.seal = seal;
        this.wall = wall;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).version(HttpClient.Version.HTTP_1_1);
        if (tls != null) b.sslContext(tls);
        this.http = b.build();
    }

    /**
     * Forgets what this replica registered in a previous life for in-memory processes: those
     * instances are gone. A durable process's instances live on, and so do their values. Called
     * once the units are deployed: only then does the engine know which processes are durable.
     */
    public void start() {
        try {
            int n = kb.forgetConversations(replica, process -> !engine.durableProcess(process));
            if (n > 0) log.info("forgot {} correlation value(s) of in-memory instances this replica held before it restarted", n);
        } catch (RuntimeException e) {
            log.warn("cannot clear this replica's conversations: {}", e.getMessage());
        }
    }

    // ---- the engine's side: values initiated, instances ended (on the instance's thread)

    @Override
    public void initiated(String process, String key, long instance, String user) {
        local.put(process + " " + key, new Local(instance, user));
        keysOfInstance.computeIfAbsent(instance, i -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(process + " " + key);
        try {
            // before the instance replies: the caller's next message may reach another replica at once
            kb.registerConversation(new ConversationOwner(process, key, instance, replica, address.get(), user));
        } catch (RuntimeException e) {
            log.warn("cannot register correlation value of instance {} ({}): other replicas cannot route to it", instance, e.getMessage());
        }
    }

    @Override
    public void ended(long instance, boolean durable) {
        List<String> keys = keysOfInstance.remove(instance);
        // a durable instance this replica did not start here (before a restart, or on a replica it
        // took over) registered its values all the same: they go too
        if (keys == null && !durable) return;
        if (keys != null) for (String k : keys) local.computeIfPresent(k, (key, l) -> l.instance() == instance ? null : l);
        forgetting.execute(() -> {
            try {
                kb.forgetConversations(replica, instance);
            } catch (RuntimeException e) {
                log.warn("cannot forget the correlation values of ended instance {}: {}", instance, e.getMessage());
            }
        });
    }

    // ---- the front-end's side

    @Override
    public Relayed forward(ProvidedService service, String operation, Element body, Map<String, List<String>> headers, String caller,
                           boolean hop) {
        Conversations.Keys keys;
        try {
            keys = engine.correlationOf(service.service(), operation, body);
        } catch (RuntimeException e) {
            log.warn("cannot compute the correlation values of a {} message ({}): handled here", operation, e.toString());
            return null;
        }
        if (keys == null) return null;
        if (!mayStart(keys, caller)) return notYours(service);
        if (keys.keys().isEmpty()) return null; // a start that correlates no existing instance: handled here
        for (String k : keys.keys()) {
            Local l = local.get(keys.process() + " " + k);
            if (l != null) return mayContinue(l.user(), caller) ? null : notYours(service);
        }
        if (hop) return null; // the replica it reached found the owner here, and checked it against the owner's record
        // a durable instance runs where it started too: its request's reply reaches the caller on the
        // replica that runs it, so its messages wait for its owner's registration as in-memory ones do
        boolean durable = engine.durable(service.service());
        long deadline = System.nanoTime() + (keys.mustMatch() ? grace.toNanos() : 0);
        long pause = 10; // ms, doubled up to 200: a registration usually lands within milliseconds
        while (true) {
            Optional<ConversationOwner> owner;
            try {
                owner = ownerOf(keys);
            } catch (RuntimeException e) {
                log.warn("cannot read conversation owners ({}): handled here", e.getMessage());
                return null;
            }
            if (owner.isPresent()) {
                if (!mayContinue(owner.get().user(), caller)) return notYours(service);
                if (owner.get().replica().equals(replica)) return null;
                return forwardTo(owner.get(), service, body, headers, durable ? keys : null);
            }
            for (String k : keys.keys()) {
                Local l = local.get(keys.process() + " " + k);
                if (l != null) return mayContinue(l.user(), caller) ? null : notYours(service);
            }
            if (System.nanoTime() - deadline >= 0) return keys.mustMatch() ? noInstance(service) : null;
            try {
                Thread.sleep(pause);
                pause = Math.min(200, pause * 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    /**
     * Whether {@code caller} may start an instance that initiates these values: not when a live
     * conversation of another user holds one of them (here, or as the knowledge base says).
     */
    private boolean mayStart(Conversations.Keys keys, String caller) {
        for (String k : keys.starts()) {
            Local l = local.get(keys.process() + " " + k);
            if (l != null && !mayContinue(l.user(), caller)) return false;
            if (l != null) continue;
            Optional<ConversationOwner> owner;
            try {
                owner = kb.conversationOwner(keys.process(), k);
            } catch (RuntimeException e) {
                continue; // the knowledge base is away: this replica's own conversations were checked
            }
            if (owner.isPresent() && !mayContinue(owner.get().user(), caller)) return false;
        }
        return true;
    }

    /** A conversation an anonymous caller started is anyone's; one a user started is that user's. */
    private static boolean mayContinue(String starter, String caller) {
        return starter == null || starter.equals(caller);
    }

    /**
     * A message that only an existing instance can take, and no instance claimed its correlation
     * values within the grace: its instance ended, or never was. Said at once, rather than left
     * waiting for the request's timeout (the engine would keep it for an instance to come).
     */
    private Relayed noInstance(ProvidedService service) {
        noInstance.increment();
        return Relayed.refused("no instance of " + service.service().getLocalPart()
                + " holds this message's correlation values: its conversation ended, or never started");
    }

    /** How many messages were refused because no instance held their correlation values. */
    public long noInstance() {
        return noInstance.sum();
    }

    private Relayed notYours(ProvidedService service) {
        refusedForeign.increment();
        return Relayed.refused("this message belongs to a conversation of " + service.service().getLocalPart()
                + " that another user started: only that user may send its messages");
    }

    /** How many messages were refused because their conversation belongs to another user. */
    public long refusedForeign() {
        return refusedForeign.sum();
    }

    private Optional<ConversationOwner> ownerOf(Conversations.Keys keys) {
        for (String k : keys.keys()) {
            Optional<ConversationOwner> o = kb.conversationOwner(keys.process(), k);
            if (o.isPresent()) return o;
        }
        return Optional.empty();
    }

    /** How many messages this replica forwarded to the replica that holds their instance. */
    public long forwarded() {
        return forwarded.sum();
    }

    /** How many messages belonged to an instance of a replica that was gone. */
    public long ownerGone() {
        return ownerGone.sum();
    }

    /** @param durableKeys the message's keys when its process is durable (its instance outlives its replica), else null */
    private Relayed forwardTo(ConversationOwner owner, ProvidedService service, Element body, Map<String, List<String>> headers,
                              Conversations.Keys durableKeys) {
        String ns = service.soap12() ? SOAP12 : SOAP11;
        String envelope = "<soap:Envelope xmlns:soap=\"" + ns + "\"><soap:Body>" + (body == null ? "" : xml(body))
                + "</soap:Body></soap:Envelope>";
        byte[] bytes = envelope.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String path = "/services" + service.path();
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(owner.address() + path))
                .timeout(Duration.ofMinutes(5))
                .header(HOP_HEADER, replica)
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
        String contentType = null, authorization = null;
        for (var h : headers.entrySet()) {
            String name = h.getKey();
            if (name == null || h.getValue() == null) continue;
            if (name.equalsIgnoreCase("Content-Type")) contentType = String.join(",", h.getValue());
            else if (name.equalsIgnoreCase("Authorization") || name.equalsIgnoreCase("SOAPAction") || name.equalsIgnoreCase(CALL_HEADER))
                for (String v : h.getValue()) req.header(name, v);
            if (name.equalsIgnoreCase("Authorization") && !h.getValue().isEmpty() && authorization == null) authorization = h.getValue().get(0);
        }
        // the seal covers this message to this owner, once: what it buys (no second policing) cannot be replayed
        req.header(HopSeal.HEADER, seal.seal(new HopSeal.Hop(replica, owner.replica(), "POST", path, java.nio.ByteBuffer.wrap(bytes),
                authorization), wall.millis()));
        io.moses.core.tracing.Tracing.inject(req::header); // the owner's spans join the message's trace
        req.header("Content-Type", contentType != null ? contentType
                : service.soap12() ? "application/soap+xml; charset=UTF-8" : "text/xml; charset=UTF-8");
        HttpResponse<byte[]> res;
        try {
            res = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException e) {
            if (durableKeys != null) return awaitTakeover(owner, durableKeys, service, body, headers);
            ownerGone.increment();
            log.info("conversation of {} lives on replica {}, which is gone", service.service().getLocalPart(), owner.replica());
            return Relayed.fault(gone(owner));
        } catch (java.io.IOException e) {
            if (durableKeys != null) return awaitTakeover(owner, durableKeys, service, body, headers);
            ownerGone.increment();
            return Relayed.fault(gone(owner) + " (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Relayed.fault("interrupted while forwarding to replica " + owner.replica());
        }
        forwarded.increment();
        return relayed(res, owner);
    }

    /**
     * A durable conversation whose replica does not answer: its instance continues where the
     * optimizer leader moves it once the replica's presence expired ({@link DurableTakeovers}).
     * The message waits for that move (its conversation's owner changes in the knowledge base),
     * at most {@link #takeoverWait}, then goes to the new owner (or runs here, if here is it).
     */
    private Relayed awaitTakeover(ConversationOwner gone, Conversations.Keys keys, ProvidedService service, Element body,
                                  Map<String, List<String>> headers) {
        awaitedTakeover.increment();
        log.info("a message for instance {} waits for its takeover: its replica {} does not answer", gone.instanceId(), gone.replica());
        long deadline = System.nanoTime() + takeoverWait.toNanos();
        long pause = 50;
        while (System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pause = Math.min(1000, pause * 2);
            Optional<ConversationOwner> now;
            try {
                now = ownerOf(keys);
            } catch (RuntimeException e) {
                continue; // the knowledge base is away for now
            }
            if (now.isEmpty()) return noInstance(service); // ended meanwhile
            if (now.get().replica().equals(gone.replica())) continue;
            if (now.get().replica().equals(replica)) return null; // taken over here
            return forwardTo(now.get(), service, body, headers, keys);
        }
        ownerGone.increment();
        return Relayed.fault("the instance this message belongs to lived on replica " + gone.replica()
                + ", which is no longer reachable, and no replica took it over within " + takeoverWait.toSeconds() + " s");
    }

    /** How many messages of durable conversations waited for their instance's takeover. */
    public long awaitedTakeover() {
        return awaitedTakeover.sum();
    }

    private static String gone(ConversationOwner owner) {
        return "the instance this message belongs to lived on replica " + owner.replica()
                + ", which is no longer reachable: in-memory process instances do not survive their replica";
    }

    /** The owner's answer: the body's payload, or its fault's reason. */
    private static Relayed relayed(HttpResponse<byte[]> res, ConversationOwner owner) {
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(res.body()));
        } catch (Exception e) {
            return Relayed.fault("replica " + owner.replica() + " answered HTTP " + res.statusCode() + " without a SOAP envelope");
        }
        Element bodyElement = child(doc.getDocumentElement(), "Body");
        if (bodyElement == null)
            return Relayed.fault("replica " + owner.replica() + " answered HTTP " + res.statusCode() + " without a SOAP body");
        Element payload = firstElement(bodyElement);
        if (payload != null && "Fault".equals(payload.getLocalName())
                && (SOAP11.equals(payload.getNamespaceURI()) || SOAP12.equals(payload.getNamespaceURI()))) {
            String reason = text(child(payload, "faultstring"));
            if (reason == null) reason = text(child(child(payload, "Reason"), "Text"));
            String code = text(child(payload, "faultcode"));
            if (code == null) code = text(child(child(payload, "Code"), "Value"));
            boolean client = code != null && (code.endsWith("Client") || code.endsWith("Sender"));
            return new Relayed(null, reason == null ? "replica " + owner.replica() + " answered a fault" : reason, client);
        }
        return new Relayed(payload, null, false);
    }

    private static Element child(Element parent, String localName) {
        if (parent == null) return null;
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && localName.equals(e.getLocalName())) return e;
        return null;
    }

    private static Element firstElement(Element parent) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) if (n instanceof Element e) return e;
        return null;
    }

    private static String text(Element e) {
        return e == null ? null : e.getTextContent().trim();
    }

    private static String xml(Element e) {
        try {
            var t = TransformerFactory.newInstance().newTransformer();
            t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            StringWriter w = new StringWriter();
            t.transform(new DOMSource(e), new StreamResult(w));
            return w.toString();
        } catch (Exception ex) {
            throw new IllegalStateException("cannot write the message: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void close() {
        forgetting.shutdown();
    }
}
