package io.moses.loadtest.stubs;

import io.moses.loadtest.stubs.StubSpec.Reservations;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The open reservations of one reservation service ({@link Reservations}), in memory, and what
 * became of them: what makes a confirm that reaches another provider than the one holding the
 * reservation visible, to a test by its counters and to the caller by a fault.
 *
 * <p>Ids are {@code <service>-<n>}, n counting up for the life of the process (a reset does not
 * restart it): no other provider issues an id, and an id never names two reservations, so a
 * confirm sent before a reset cannot confirm one taken after it. One lock guards the map, the
 * bound and the counters, which change together; a stub's calls hold it for a map operation.
 */
final class ReservationBook {
    private record Reservation(String guest, int nights) {}

    private final String service;
    private final String namespace;
    private final int maxOpen;
    private final Map<String, Reservation> open = new HashMap<>();
    private long issued;
    private long made;
    private long confirmed;
    private long confirmsRefused;
    private long reservesRefused;

    ReservationBook(String service, String namespace, int maxOpen) {
        this.service = service;
        this.namespace = namespace;
        this.maxOpen = maxOpen;
    }

    /**
     * Checks a reserve or confirm request; returns how to answer it once its latency has passed.
     * Nothing is reserved or confirmed before then, nor for a request that fails (simulated).
     */
    LongFunction<StubService.Answer> accept(Soap.Request request) throws Soap.BadRequest {
        if (request.namespace().equals(namespace) && request.local().equals(Reservations.RESERVE_REQUEST)) {
            String guest = StubService.child(request, namespace, "guest");
            String nights = StubService.child(request, namespace, "nights");
            if (guest == null || guest.isBlank() || nights == null)
                throw new Soap.BadRequest("service " + service + ": " + Reservations.RESERVE_REQUEST
                        + " needs children guest and nights (in namespace " + namespace + " or none); it has " + request.children().keySet());
            int n = nights(nights.strip());
            String who = guest.strip();
            return count -> reserve(who, n);
        }
        if (request.namespace().equals(namespace) && request.local().equals(Reservations.CONFIRM_REQUEST)) {
            String id = StubService.child(request, namespace, "reservationId");
            if (id == null || id.isBlank())
                throw new Soap.BadRequest("service " + service + ": " + Reservations.CONFIRM_REQUEST
                        + " needs a child reservationId (in namespace " + namespace + " or none); it has " + request.children().keySet());
            String reservation = id.strip();
            return count -> confirm(reservation);
        }
        throw new Soap.BadRequest("service " + service + " expects request element {" + namespace + "}" + Reservations.RESERVE_REQUEST
                + " or {" + namespace + "}" + Reservations.CONFIRM_REQUEST + ", got " + request.name());
    }

    private int nights(String text) throws Soap.BadRequest {
        try {
            int n = Integer.parseInt(text);
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new Soap.BadRequest("service " + service + ": nights must be a whole number from 1, was '" + text + "'");
    }

    synchronized StubService.Answer reserve(String guest, int nights) {
        if (open.size() >= maxOpen) {
            reservesRefused++;
            return StubService.Answer.fault(false, service + " holds " + open.size()
                    + " open reservations, its limit: it takes no more until some are confirmed");
        }
        String id = service + "-" + ++issued;
        open.put(id, new Reservation(guest, nights));
        made++;
        return StubService.Answer.reply(element(Reservations.RESERVE_RESPONSE, "reservationId", id));
    }

    synchronized StubService.Answer confirm(String id) {
        Reservation r = open.remove(id);
        if (r == null) {
            confirmsRefused++;
            return StubService.Answer.fault(true, "unknown reservation " + id + " at " + service);
        }
        confirmed++;
        return StubService.Answer.reply(element(Reservations.CONFIRM_RESPONSE, "result",
                "confirmed " + id + " for " + r.guest() + ", " + r.nights() + (r.nights() == 1 ? " night" : " nights") + ", by " + service));
    }

    private String element(String root, String child, String text) {
        return "<r:" + root + " xmlns:r=\"" + Soap.escape(namespace) + "\"><r:" + child + ">" + Soap.escape(text) + "</r:" + child
                + "></r:" + root + ">";
    }

    /** Forgets every open reservation and zeroes the counters; ids keep counting up. */
    synchronized void reset() {
        open.clear();
        made = confirmed = confirmsRefused = reservesRefused = 0;
    }

    /** The counters, into a service's admin JSON. */
    synchronized void addTo(Map<String, Object> json) {
        json.put("confirm", "{" + namespace + "}" + Reservations.CONFIRM_REQUEST);
        json.put("maxOpen", maxOpen);
        json.put("open", open.size());
        json.put("reservations", made);
        json.put("confirmed", confirmed);
        json.put("confirmsRefused", confirmsRefused);
        json.put("reservesRefused", reservesRefused);
    }
}
