package io.moses.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A failure costs its detection time f_j, not the success latency r_j (docs/model.md, "Estimates from observations"). */
class FailureDetectionTest {
    static final TaskRef T = TaskRef.of("c", "p", "o");

    static ConcreteService s(String name) {
        return new ConcreteService(name, T, URI.create("http://127.0.0.1:1/" + name), new ProviderSla(0.1, 0.9, 1, 100), null);
    }

    @Test
    void aServiceThatFailsSlowlyIsPricedAsSuch() {
        PlanningInput in = PlanningInput.builder().services(List.of(s("hangs"), s("refuses")))
                .failureDetection("hangs", 10.0).failureDetection("refuses", 0.002).build();
        Map<String, Double> r = new Candidates(in, List.of(T)).of(T).stream()
                .collect(Collectors.toMap(q -> q.implementation().toString(), ImplementationQos::responseTime));
        assertEquals(0.9 * 0.1 + 0.1 * 10.0, r.get("hangs"), 1e-12);
        assertEquals(0.9 * 0.1 + 0.1 * 0.002, r.get("refuses"), 1e-12);
        // alternate: the second member is reached after the first one's failure was detected
        assertEquals(0.9 * 0.1 + 0.1 * 10.0 + 0.1 * (0.9 * 0.1 + 0.1 * 0.002), r.get(new Implementation(
                Implementation.Pattern.ALTERNATE, List.of("hangs", "refuses")).toString()), 1e-12);
    }
}
