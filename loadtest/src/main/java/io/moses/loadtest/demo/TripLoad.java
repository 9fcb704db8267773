package io.moses.loadtest.demo;

import io.moses.loadtest.driver.ClosedLoopDriver;
import io.moses.loadtest.driver.UserCredentials;
import io.moses.loadtest.driver.LoadResult;
import io.moses.loadtest.driver.LoadSpec;
import io.moses.loadtest.driver.Progress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The trip planner workload of the demo and benchmarks: the seed's users, {@link Demo#request} bodies. */
public final class TripLoad {
    private TripLoad() {}

    /**
     * @param maxRequests 0 for no count bound
     * @param maxDuration null for no time bound
     * @param progress    null for none
     */
    public static LoadResult run(String broker, int clients, long maxRequests, Duration maxDuration, Consumer<Progress> progress)
            throws InterruptedException {
        List<UserCredentials> users = new ArrayList<>();
        for (String[] u : Demo.USERS) users.add(new UserCredentials(u[0], u[1]));
        LoadSpec.Builder spec = LoadSpec.builder(URI.create(broker + "/services/TripPlannerService"),
                        (sequence, user) -> Demo.request((int) sequence, user))
                .soapAction("urn:moses:trip-planner/planTrip").credentials(users).clients(clients)
                .maxRequests(maxRequests).maxDuration(maxDuration);
        if (progress != null) spec.progress(progress);
        return ClosedLoopDriver.run(spec.build());
    }
}
