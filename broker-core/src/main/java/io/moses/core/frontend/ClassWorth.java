package io.moses.core.frontend;

import io.moses.model.ServiceClass;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * What a request is worth to the broker when it must refuse some: its class's price per request.
 * A caller with no class (anonymous, failed authentication, a class not known yet) is worth
 * least, below a class priced 0. Set off the request path from the cached classes; the request
 * path reads one immutable map.
 */
public final class ClassWorth {
    /** The worth of a request of no known class: below any price (prices are never negative). */
    static final double LEAST = -1;

    private volatile Map<String, Double> prices = Map.of();

    /** Off the request path (each knowledge refresh): the classes there are now. */
    public void update(Collection<ServiceClass> classes) {
        Map<String, Double> m = new HashMap<>();
        for (ServiceClass c : classes) m.put(c.name(), c.price());
        prices = Map.copyOf(m);
    }

    double of(String serviceClass) {
        if (serviceClass == null) return LEAST;
        Double p = prices.get(serviceClass);
        return p == null ? LEAST : p;
    }
}
