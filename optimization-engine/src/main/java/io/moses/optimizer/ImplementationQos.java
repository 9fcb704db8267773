package io.moses.optimizer;

import io.moses.model.Implementation;
import java.util.Map;

/**
 * One candidate implementation of a task with its constant QoS (docs/model.md, "Implementations").
 *
 * @param responseTime r_iJ [s]
 * @param availability a_iJ
 * @param cost         c_iJ
 * @param endpointShare q_j(J) summed per endpoint: the share of the task's requests that reach
 *                      each endpoint
 */
record ImplementationQos(Implementation implementation, double responseTime, double availability, double cost,
                         Map<String, Double> endpointShare) {
    double logAvailability() {
        return Math.log(Math.max(availability, 1e-300));
    }
}
