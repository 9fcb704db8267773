package io.moses.optimizer;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Instances for tests and the benchmark, built from model types. */
final class Fixtures {
    private Fixtures() {}

    static final String TRIP = "TripPlanner";
    static final TaskRef FLIGHT = TaskRef.of(TRIP, "flight", "findFlight");
    static final TaskRef HOTEL = TaskRef.of(TRIP, "hotel", "findHotel");
    static final TaskRef WEATHER = TaskRef.of(TRIP, "weather", "getForecast");
    static final TaskRef CAR = TaskRef.of(TRIP, "car", "rentCar");
    static final TaskRef ATTRACTION = TaskRef.of(TRIP, "attraction", "bookAttraction");
    static final TaskRef PAYMENT = TaskRef.of(TRIP, "payment", "charge");
    static final List<TaskRef> TRIP_TASKS = List.of(FLIGHT, HOTEL, WEATHER, CAR, ATTRACTION, PAYMENT);

    /** sequence{ flow{flight, hotel, weather}, if{car | empty}, forEach{attraction}, payment }. */
    static CompositeService tripPlanner() {
        Activity root = new Activity.Sequence("/seq", List.of(
                new Activity.Flow("/seq/flow", List.of(
                        new Activity.Invoke("/seq/flow/flight", FLIGHT),
                        new Activity.Invoke("/seq/flow/hotel", HOTEL),
                        new Activity.Invoke("/seq/flow/weather", WEATHER))),
                new Activity.Choice("/seq/if", Activity.Choice.Kind.IF, List.of(
                        new Activity.Invoke("/seq/if/car", CAR),
                        new Activity.NoOp("/seq/if/else", "empty"))),
                new Activity.Loop("/seq/forEach", Activity.Loop.Kind.FOR_EACH,
                        new Activity.Invoke("/seq/forEach/attraction", ATTRACTION)),
                new Activity.Invoke("/seq/payment", PAYMENT)));
        return new CompositeService(TRIP, "urn:moses:trip", TRIP_TASKS, root);
    }

    static ConcreteService service(String name, TaskRef task, double r, double a, double c, double l) {
        return new ConcreteService(name, task, URI.create("http://127.0.0.1:9/" + name), new ProviderSla(r, a, c, l), null);
    }

    static ServiceClass serviceClass(String name, double rMax, double aMin, double cMax, double price) {
        return new ServiceClass(name, rMax, aMin, cMax, price);
    }

    /** The trip planner with {@code classes} classes and 2-4 services per task, feasible at the given load. */
    static PlanningInput.Builder tripPlannerInput(int classes, long seed) {
        Random rnd = new Random(seed);
        PlanningInput.Builder b = PlanningInput.builder().composite(tripPlanner());
        for (TaskRef t : TRIP_TASKS) {
            int n = 2 + (int) (seed + t.name().length()) % 3;
            for (int j = 0; j < n; j++)
                b.service(service(t.partnerLink() + j, t, 0.2 + rnd.nextDouble(), 0.95 + 0.049 * rnd.nextDouble(),
                        0.5 + 2 * rnd.nextDouble(), 40 + 60 * rnd.nextDouble()));
        }
        for (int k = 0; k < classes; k++)
            b.serviceClass(serviceClass("class" + k, 6 + 2 * k, 0.9 - 0.02 * k, 40 - 3 * k, 10 - k), 2 + k);
        return b;
    }

    /**
     * A synthetic composite of {@code tasks} tasks (groups of five: flow{a, b}, if{c | empty},
     * loop{d}, e), {@code perTask} services per task, {@code classes} classes.
     */
    static PlanningInput.Builder synthetic(int classes, int tasks, int perTask, long seed) {
        Random rnd = new Random(seed);
        String comp = "Synthetic";
        List<TaskRef> ts = new ArrayList<>();
        for (int i = 0; i < tasks; i++) ts.add(new TaskRef(comp, "p" + i + ".op"));
        List<Activity> seq = new ArrayList<>();
        int i = 0;
        while (i < tasks) {
            int left = tasks - i;
            if (left >= 2) {
                seq.add(new Activity.Flow("/f" + i, List.of(new Activity.Invoke("/i" + i, ts.get(i)),
                        new Activity.Invoke("/i" + (i + 1), ts.get(i + 1)))));
                i += 2;
            } else seq.add(new Activity.Invoke("/i" + i, ts.get(i++)));
            if (i < tasks) {
                seq.add(new Activity.Choice("/c" + i, Activity.Choice.Kind.IF,
                        List.of(new Activity.Invoke("/i" + i, ts.get(i)), new Activity.NoOp("/e" + i, "empty"))));
                i++;
            }
            if (i < tasks) {
                seq.add(new Activity.Loop("/l" + i, Activity.Loop.Kind.WHILE, new Activity.Invoke("/i" + i, ts.get(i))));
                i++;
            }
            if (i < tasks) seq.add(new Activity.Invoke("/i" + i, ts.get(i++)));
        }
        PlanningInput.Builder b = PlanningInput.builder()
                .composite(new CompositeService(comp, "urn:moses:synthetic", ts, new Activity.Sequence("/", seq)));
        double totalLoad = 0;
        for (int k = 0; k < classes; k++) totalLoad += 1 + k % 5;
        for (TaskRef t : ts)
            for (int j = 0; j < perTask; j++)
                b.service(service(t.partnerLink() + "s" + j, t, 0.05 + 0.5 * rnd.nextDouble(),
                        0.95 + 0.049 * rnd.nextDouble(), 0.1 + rnd.nextDouble(),
                        totalLoad * (0.5 + rnd.nextDouble()) * 2 / perTask));
        for (int k = 0; k < classes; k++)
            b.serviceClass(serviceClass("k" + k, tasks * (0.5 + 0.1 * (k % 4)), 0.5, tasks * 2.0, 5 + k), 1 + k % 5);
        return b;
    }
}
