package io.moses.sla;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.User;
import io.moses.optimizer.AdmissionDecision;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SLA Manager (docs/model.md, "Admission and counter-offer"): users negotiate their subscription with the broker.
 * A new subscription or a change is admitted only if the optimizer can still keep every class's
 * SLA with the extra load; a refusal comes with counter-offers the broker can admit now. An
 * accepted change is stored through MDAL and re-planned before the reply.
 *
 * <p>Races: the decision is made on one version of the subscriptions and stored only if that
 * version still holds (the knowledge base checks it under a row lock), so two replicas cannot
 * both hand out the last capacity; the loser decides again.
 */
public final class SlaManager {
    private static final Logger log = LoggerFactory.getLogger(SlaManager.class);
    /** Above this a rate is a typo, not a subscription. */
    public static final double MAX_RATE = 1e6;
    private static final int ATTEMPTS = 5;

    /** Whether anybody may subscribe, or only operators (on behalf of new users). */
    public enum Registration { OPEN, CLOSED }

    /**
     * While registration is open, anyone may subscribe until the knowledge base holds this many
     * users (each costs a stored user, a solve and a re-plan, and rate 0 costs no capacity, so
     * admission alone does not bound them); operators subscribe users beyond it.
     */
    public static final int DEFAULT_REGISTRATION_CAP = 1000;

    /** A class as offered: its SLA and the rate it can still admit now. */
    public record ClassOffer(ServiceClass serviceClass, double admissibleRate) {}

    /** Another class or a lower rate the broker can admit now. */
    public record CounterOffer(String serviceClass, double rate) {}

    /**
     * The outcome of Subscribe or ChangeSubscription.
     *
     * @param accepted     whether the change was stored
     * @param user         the user
     * @param serviceClass the class in force after the call
     * @param rate         the rate in force after the call (0 for a refused new user)
     * @param planVersion  the plan version that serves the subscription
     * @param reason       one line
     * @param counterOffers on refusal, what the broker can admit now
     */
    public record Subscription(boolean accepted, String user, String serviceClass, double rate, long planVersion, String reason,
                               List<CounterOffer> counterOffers) {
        public Subscription {
            counterOffers = List.copyOf(counterOffers);
        }
    }

    private final KnowledgeBase kb;
    private final OptimizationEngine optimizer;
    private final Planning planning;
    private final Registration registration;
    private final int registrationCap;
    /** The broker's wall clock: when a refusal happened. */
    private final Clock wall;
    /** One admission at a time on this replica (across replicas the version check decides). */
    private final Object admission = new Object();
    private final Object offering = new Object();
    /** The last answer of {@link #classes}, null once this replica admitted a change after it. */
    private volatile Offers offers;

    public SlaManager(KnowledgeBase kb, OptimizationEngine optimizer, Planning planning, Registration registration, Clock wall) {
        this(kb, optimizer, planning, registration, DEFAULT_REGISTRATION_CAP, wall);
    }

    /** @param registrationCap how many users the knowledge base may hold before self-registration is refused */
    public SlaManager(KnowledgeBase kb, OptimizationEngine optimizer, Planning planning, Registration registration, int registrationCap,
                      Clock wall) {
        if (registrationCap < 0) throw new IllegalArgumentException("registrationCap must be >= 0, was " + registrationCap);
        this.kb = kb;
        this.optimizer = optimizer;
        this.planning = planning;
        this.registration = registration;
        this.registrationCap = registrationCap;
        this.wall = wall;
    }

    public Registration registration() {
        return registration;
    }

    /**
     * Every class with its SLA and the rate it can still admit. Anyone may ask, and each answer
     * costs about ten solves per class: one answer serves every caller for
     * {@link #OFFERS_FRESH_MILLIS}, or until this replica admits a change (another replica's
     * shows within that time; Subscribe decides on what is known then, whatever the offer said).
     */
    public List<ClassOffer> classes() {
        Offers o = offers;
        if (o != null && o.freshAt(wall.millis())) return o.offers();
        synchronized (offering) { // callers arriving meanwhile wait for this answer instead of computing their own
            o = offers;
            if (o != null && o.freshAt(wall.millis())) return o.offers();
            PlanningInput in = input();
            List<ClassOffer> out = new ArrayList<>();
            for (ServiceClass k : in.classes()) out.add(new ClassOffer(k, AdmissibleRate.of(optimizer, in, k.name())));
            offers = new Offers(wall.millis(), List.copyOf(out));
            return offers.offers();
        }
    }

    /** How long one answer of {@link #classes} serves. */
    static final long OFFERS_FRESH_MILLIS = 1000;

    private record Offers(long atMillis, List<ClassOffer> offers) {
        boolean freshAt(long now) {
            return now >= atMillis && now - atMillis < OFFERS_FRESH_MILLIS;
        }
    }

    /** A subscription by its user's name. */
    public Optional<User> subscriber(String name) {
        return lookup(name);
    }

    public long planVersion() {
        return planning.current() == null ? 0 : planning.current().version();
    }

    /**
     * A new user subscribes to {@code serviceClass} at {@code rate}.
     *
     * @param caller the authenticated caller, or null (allowed only while registration is open)
     */
    public Subscription subscribe(User caller, String name, String password, String serviceClass, double rate) {
        if (registration == Registration.CLOSED && (caller == null || !caller.isOperator()))
            throw new SlaException(caller == null ? SlaException.Code.UNAUTHENTICATED : SlaException.Code.FORBIDDEN,
                    "registration is closed: an operator subscribes new users");
        Accounts.requireValidName(name);
        Accounts.requireValidPassword(password);
        checkRate(rate);
        ServiceClass k = knownClass(serviceClass);
        if (lookup(name).isPresent()) throw new SlaException(SlaException.Code.DUPLICATE_USER, "user '" + name + "' already exists");
        if ((caller == null || !caller.isOperator()) && kbCall(kb::users).size() >= registrationCap)
            throw new SlaException(SlaException.Code.FORBIDDEN, "registration is full (" + registrationCap
                    + " users): an operator subscribes new users");
        String hash = PasswordHasher.hash(password.toCharArray());
        for (int attempt = 1; ; attempt++) {
            synchronized (admission) {
                long version = kbCall(kb::subscriptionsVersion);
                PlanningInput in = input();
                AdmissionDecision d = admit(in, k.name(), rate);
                if (!d.accepted()) return refused(name, null, 0, k.name(), rate, d, in);
                try {
                    kb.subscribe(new User(name, k.name(), rate, hash, Role.USER), version);
                    offers = null;
                } catch (KnowledgeBaseException e) {
                    if (e.kind() == KnowledgeBaseException.Kind.CONFLICT && lookup(name).isPresent())
                        throw new SlaException(SlaException.Code.DUPLICATE_USER, "user '" + name + "' already exists");
                    if (retry(e, attempt)) continue;
                    throw translate(e);
                }
                Planning.Replanned p;
                try {
                    p = planning.replan("subscription of " + name + ": " + fmt(rate) + " req/s in " + k.name(), Set.of());
                } catch (RuntimeException e) {
                    undo(() -> kb.removeUser(name), "subscription of " + name);
                    throw new SlaException(SlaException.Code.UNAVAILABLE, "the subscription could not be planned (" + e.getMessage()
                            + "); nothing was stored");
                }
                log.info("subscription accepted: {} in {} at {} req/s, plan {}", name, k.name(), fmt(rate), p.version());
                return new Subscription(true, name, k.name(), rate, p.version(), "accepted; " + d.reason() + planNote(p), List.of());
            }
        }
    }

    /**
     * Moves a subscription to another class and/or rate (null: unchanged).
     *
     * @param target the user to change, or null for the caller; only an operator may name another
     */
    public Subscription change(User caller, String target, String serviceClass, Double rate) {
        User u = subject(caller, target);
        String cls = serviceClass == null || serviceClass.isBlank() ? u.serviceClass() : knownClass(serviceClass).name();
        double newRate = rate == null ? u.rate() : rate;
        checkRate(newRate);
        for (int attempt = 1; ; attempt++) {
            synchronized (admission) {
                long version = kbCall(kb::subscriptionsVersion);
                User current = lookup(u.name()).orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_USER,
                        "user '" + u.name() + "' has no subscription"));
                PlanningInput in = input();
                // decide with the user's current load taken out, then the new one added
                PlanningInput without = in.withLoad(current.serviceClass(),
                        Math.max(0, in.load(current.serviceClass()) - current.rate()));
                AdmissionDecision d = admit(without, cls, newRate);
                if (!d.accepted()) return refused(u.name(), current.serviceClass(), current.rate(), cls, newRate, d, without);
                try {
                    kb.changeSubscription(u.name(), cls, newRate, version);
                    offers = null;
                } catch (KnowledgeBaseException e) {
                    if (retry(e, attempt)) continue;
                    throw translate(e);
                }
                Planning.Replanned p;
                try {
                    p = planning.replan("subscription of " + u.name() + " changed to " + fmt(newRate) + " req/s in " + cls, Set.of());
                } catch (RuntimeException e) {
                    undo(() -> kb.changeSubscription(u.name(), current.serviceClass(), current.rate(), kb.subscriptionsVersion()),
                            "change of " + u.name());
                    throw new SlaException(SlaException.Code.UNAVAILABLE, "the change could not be planned (" + e.getMessage()
                            + "); the subscription is as before");
                }
                log.info("subscription changed: {} from {} at {} to {} at {} req/s, plan {}", u.name(), current.serviceClass(),
                        fmt(current.rate()), cls, fmt(newRate), p.version());
                return new Subscription(true, u.name(), cls, newRate, p.version(), "accepted; " + d.reason() + planNote(p), List.of());
            }
        }
    }

    /** Ends a subscription (the user is removed); returns the plan version in force after. */
    public long cancel(User caller, String target) {
        User u = subject(caller, target);
        synchronized (admission) {
            boolean removed;
            try {
                removed = kb.removeUser(u.name());
                offers = null;
            } catch (KnowledgeBaseException e) {
                throw translate(e);
            }
            if (!removed) throw new SlaException(SlaException.Code.UNKNOWN_USER, "user '" + u.name() + "' has no subscription");
            Planning.Replanned p;
            try {
                p = planning.replan("subscription of " + u.name() + " cancelled", Set.of());
            } catch (RuntimeException e) {
                // less load never breaks a plan: the old plan serves until the next re-plan
                log.warn("cancellation of {} stored; re-plan failed: {}", u.name(), e.getMessage());
                return planVersion();
            }
            log.info("subscription cancelled: {} ({} at {} req/s), plan {}", u.name(), u.serviceClass(), fmt(u.rate()), p.version());
            return p.version();
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The user a call acts on: the caller, or (for an operator) the one named. */
    private User subject(User caller, String target) {
        if (caller == null) throw new SlaException(SlaException.Code.UNAUTHENTICATED, "authentication required: send HTTP Basic credentials");
        if (target == null || target.isBlank() || target.equals(caller.name())) return caller;
        if (!caller.isOperator())
            throw new SlaException(SlaException.Code.FORBIDDEN, "user '" + caller.name() + "' may change only its own subscription, not '"
                    + target + "'");
        return lookup(target).orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_USER, "no user '" + target + "'"));
    }

    private Subscription refused(String user, String currentClass, double currentRate, String cls, double rate, AdmissionDecision d,
                                 PlanningInput in) {
        List<CounterOffer> offers = new ArrayList<>();
        double lower = roundDown(d.maxFeasibleRate());
        if (lower > 0 && lower < rate) offers.add(new CounterOffer(cls, lower));
        for (String other : d.otherClassesThatAccept()) offers.add(new CounterOffer(other, rate));
        String detail = String.format("%s asked %s req/s in %s: %s", user, fmt(rate), cls, d.reason());
        try {
            kb.recordSlaEvent(new SlaEvent(wall.instant(), SlaEvent.Kind.REJECTION, cls, user, detail));
        } catch (KnowledgeBaseException e) {
            // the log line below keeps it
        }
        log.info("subscription refused: {}; counter-offers {}", detail, offers);
        return new Subscription(false, user, currentClass == null ? cls : currentClass, currentRate, planVersion(), d.reason(), offers);
    }

    private AdmissionDecision admit(PlanningInput in, String cls, double rate) {
        try {
            return optimizer.admit(in, cls, rate);
        } catch (RuntimeException e) {
            throw new SlaException(SlaException.Code.UNAVAILABLE, "admission could not be decided: " + e.getMessage());
        }
    }

    private PlanningInput input() {
        try {
            return planning.input();
        } catch (KnowledgeBaseException e) {
            throw translate(e);
        }
    }

    private ServiceClass knownClass(String name) {
        if (name == null || name.isBlank()) throw new SlaException(SlaException.Code.INVALID, "serviceClass must not be empty");
        return kbCall(() -> kb.serviceClass(name)).orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_CLASS,
                "no service class '" + name + "' (classes: " + kbCall(kb::serviceClasses).stream().map(ServiceClass::name).toList() + ")"));
    }

    private Optional<User> lookup(String name) {
        return kbCall(() -> kb.user(name));
    }

    private static void checkRate(double rate) {
        if (!(rate >= 0) || rate > MAX_RATE)
            throw new SlaException(SlaException.Code.INVALID, "rate must be a number from 0 to " + fmt(MAX_RATE) + " req/s, was " + rate);
    }

    private static boolean retry(KnowledgeBaseException e, int attempt) {
        if (e.kind() != KnowledgeBaseException.Kind.CONFLICT) return false;
        if (attempt >= ATTEMPTS)
            throw new SlaException(SlaException.Code.BUSY, "other subscription changes kept coming in; nothing was stored, try again");
        // another replica (or a service or class change) stored first: one line, the decision is made again
        log.info("admission inputs changed while deciding (attempt {}): deciding again", attempt);
        return true;
    }

    private static SlaException translate(KnowledgeBaseException e) {
        return SlaException.from(e, SlaException.Code.UNKNOWN_USER, SlaException.Code.BUSY);
    }

    private static <T> T kbCall(java.util.function.Supplier<T> call) {
        return SlaException.orRefuse(call, SlaManager::translate);
    }

    private static void undo(Runnable r, String what) {
        try {
            r.run();
        } catch (RuntimeException e) {
            log.error("could not undo the {} after a failed re-plan: {}", what, e.getMessage());
        }
    }

    private static String planNote(Planning.Replanned p) {
        return p.solved() ? "; served by plan " + p.version() : "; plan " + p.version() + " unchanged (" + p.message() + ")";
    }

    /** Three significant digits, rounded down: an offer must stay within what was found admissible. */
    static double roundDown(double x) {
        return AdmissibleRate.roundDown(x);
    }

    static String fmt(double x) {
        return String.format("%.4g", x);
    }
}
