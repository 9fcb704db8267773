package io.moses.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity.Choice;
import io.moses.model.Activity.Flow;
import io.moses.model.Activity.Invoke;
import io.moses.model.Activity.Loop;
import io.moses.model.Activity.NoOp;
import io.moses.model.Activity.ParallelForEach;
import io.moses.model.Activity.Sequence;
import io.moses.model.Visits.Profile;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VisitsTest {
    private static final double EPS = 1e-12;
    private static final TaskRef A = TaskRef.of("P", "a", "op");
    private static final TaskRef B = TaskRef.of("P", "b", "op");
    private static final TaskRef C = TaskRef.of("P", "c", "op");
    private static final TaskRef D = TaskRef.of("P", "d", "op");

    private static Invoke inv(String id, TaskRef t) { return new Invoke(id, t); }

    private static Profile profile(Map<String, List<Double>> probs, Map<String, Double> iters) {
        return new Profile(probs, iters);
    }

    @Test
    void sequenceAndFlowCountEveryChildOnce() {
        Activity root = new Sequence("/s", List.of(inv("/s/a", A),
                new Flow("/s/f", List.of(inv("/s/f/b", B), inv("/s/f/c", C))), new NoOp("/s/n", "assign")));
        Map<TaskRef, Double> v = Visits.of(root, Profile.DEFAULT);
        assertEquals(Map.of(A, 1.0, B, 1.0, C, 1.0), v);
    }

    @Test
    void twoWayIfDefaultsToHalf() {
        Activity root = new Choice("/if", Choice.Kind.IF, List.of(inv("/if/a", A), new NoOp("/if/else", "empty")));
        assertEquals(0.5, Visits.of(root, Profile.DEFAULT).get(A), EPS);
    }

    @Test
    void choiceUsesMeasuredProbabilities() {
        Activity root = new Choice("/pick", Choice.Kind.PICK, List.of(inv("/1", A), inv("/2", B), inv("/3", A)));
        Map<TaskRef, Double> v = Visits.of(root, profile(Map.of("/pick", List.of(0.2, 0.5, 0.3)), Map.of()));
        assertEquals(0.5, v.get(A), EPS); // 0.2 + 0.3: two invokes of one task add up
        assertEquals(0.5, v.get(B), EPS);
        Map<TaskRef, Double> equal = Visits.of(root, Profile.DEFAULT);
        assertEquals(2.0 / 3, equal.get(A), EPS);
    }

    @Test
    void loopInsideBranchMultiplies() {
        // if (p = 0.3) { while (n = 3) { a } } else { b }
        Activity root = new Choice("/if", Choice.Kind.IF, List.of(
                new Loop("/if/while", Loop.Kind.WHILE, inv("/if/while/a", A)), inv("/if/else/b", B)));
        Map<TaskRef, Double> v = Visits.of(root, profile(Map.of("/if", List.of(0.3, 0.7)), Map.of("/if/while", 3.0)));
        assertEquals(0.9, v.get(A), EPS);
        assertEquals(0.7, v.get(B), EPS);
    }

    @Test
    void nestedLoopsAndChoicesMultiplyAlongThePath() {
        // forEach(n=2) { repeatUntil(n=4) { if (0.25) { flow { a, parallelForEach(N=5) { b } } } else { c } } }, d
        Activity inner = new Choice("/if", Choice.Kind.IF, List.of(
                new Flow("/flow", List.of(inv("/a", A), new ParallelForEach("/pfe", inv("/b", B)))),
                inv("/c", C)));
        Activity root = new Sequence("/s", List.of(
                new Loop("/fe", Loop.Kind.FOR_EACH, new Loop("/ru", Loop.Kind.REPEAT_UNTIL, inner)), inv("/d", D)));
        Profile p = profile(Map.of("/if", List.of(0.25, 0.75)), Map.of("/fe", 2.0, "/ru", 4.0, "/pfe", 5.0));
        Map<TaskRef, Double> v = Visits.of(root, p);
        assertEquals(2 * 4 * 0.25, v.get(A), EPS);
        assertEquals(2 * 4 * 0.25 * 5, v.get(B), EPS);
        assertEquals(2 * 4 * 0.75, v.get(C), EPS);
        assertEquals(1.0, v.get(D), EPS);
        assertEquals(List.of(A, B, C, D), List.copyOf(v.keySet()), "document order");
    }

    @Test
    void whileMayRunZeroTimesButRepeatUntilRunsAtLeastOnce() {
        Activity w = new Loop("/w", Loop.Kind.WHILE, inv("/a", A));
        Activity r = new Loop("/r", Loop.Kind.REPEAT_UNTIL, inv("/a", A));
        Activity f = new Loop("/f", Loop.Kind.FOR_EACH, inv("/a", A));
        Profile p = profile(Map.of(), Map.of("/w", 0.0, "/r", 0.4, "/f", 0.0));
        assertEquals(0.0, Visits.of(w, p).get(A), EPS);
        assertEquals(1.0, Visits.of(r, p).get(A), EPS);
        assertEquals(0.0, Visits.of(f, p).get(A), EPS);
        assertEquals(2.5, Visits.of(r, profile(Map.of(), Map.of("/r", 2.5))).get(A), EPS);
        assertEquals(1.0, Visits.of(w, Profile.DEFAULT).get(A), EPS, "a loop runs once by default");
    }

    @Test
    void parallelForEachCountsItsBranches() {
        Activity root = new ParallelForEach("/pfe", inv("/a", A));
        assertEquals(1.0, Visits.of(root, Profile.DEFAULT).get(A), EPS);
        assertEquals(7.0, Visits.of(root, profile(Map.of(), Map.of("/pfe", 7.0))).get(A), EPS);
    }

    @Test
    void compositeListsUnreachedTasksWithZero() {
        // D is a task of the process (say, invoked only in a fault handler) but not on the tree.
        Activity root = new Sequence("/s", List.of(inv("/a", A), new NoOp("/r", "reply")));
        CompositeService cs = new CompositeService("P", "urn:p", List.of(D, A), root);
        Map<TaskRef, Double> v = Visits.of(cs, Profile.DEFAULT);
        assertEquals(List.of(D, A), List.copyOf(v.keySet()));
        assertEquals(0.0, v.get(D));
        assertEquals(1.0, v.get(A));
    }

    @Test
    void profileOfAnotherCompositeIsIgnored() {
        Activity root = new Loop("/w", Loop.Kind.WHILE, inv("/a", A));
        Profile p = profile(Map.of("/elsewhere", List.of(1.0)), Map.of("/other", 9.0));
        assertEquals(1.0, Visits.of(root, p).get(A), EPS);
    }

    @Test
    void wrongBranchCountNamesTheActivity() {
        Activity root = new Sequence("/s", List.of(
                new Choice("/s/if[1]", Choice.Kind.IF, List.of(inv("/x", A), inv("/y", B), new NoOp("/z", "empty")))));
        var e = assertThrows(IllegalArgumentException.class,
                () -> Visits.of(root, profile(Map.of("/s/if[1]", List.of(0.5, 0.5)), Map.of())));
        assertTrue(e.getMessage().contains("/s/if[1]") && e.getMessage().contains("3 branches"), e.getMessage());
    }

    @Test
    void invalidProfilesAreRefusedNamingTheActivity() {
        assertRefused("/if", "sum to 1", () -> profile(Map.of("/if", List.of(0.5, 0.4)), Map.of()));
        assertRefused("/if", "[0, 1]", () -> profile(Map.of("/if", List.of(1.5, -0.5)), Map.of()));
        assertRefused("/if", "[0, 1]", () -> profile(Map.of("/if", List.of(Double.NaN, 1.0)), Map.of()));
        assertRefused("/if", "[1]", () -> profile(Map.of("/if", Arrays.asList(1.0, null)), Map.of()));
        assertRefused("/if", "per branch", () -> profile(Map.of("/if", List.of()), Map.of()));
        assertRefused("/w", ">= 0", () -> profile(Map.of(), Map.of("/w", -1.0)));
        assertRefused("/w", ">= 0", () -> profile(Map.of(), Map.of("/w", Double.POSITIVE_INFINITY)));
        Map<String, Double> nulls = new HashMap<>();
        nulls.put("/w", null);
        assertRefused("/w", ">= 0", () -> profile(Map.of(), nulls));
        // within the tolerance is fine
        profile(Map.of("/if", List.of(0.3333333, 0.3333333, 0.3333334)), Map.of());
    }

    @Test
    void profileIsImmutable() {
        var probs = new HashMap<String, List<Double>>();
        probs.put("/if", new java.util.ArrayList<>(List.of(0.5, 0.5)));
        Profile p = profile(probs, Map.of());
        probs.get("/if").set(0, 0.9);
        probs.put("/other", List.of(1.0));
        assertEquals(List.of(0.5, 0.5), p.branchProbabilities().get("/if"));
        assertEquals(1, p.branchProbabilities().size());
        assertThrows(UnsupportedOperationException.class, () -> p.branchProbabilities().get("/if").set(0, 1.0));
    }

    @Test
    void tasksNameEveryInvokeInDocumentOrderWhateverTheProfile() {
        // a branch of probability 0 and a loop of 0 iterations still name their tasks: the
        // knowledge base registers them and the optimizer builds their columns
        Activity root = new Sequence("/s", List.of(
                new Choice("/s/if", Choice.Kind.IF, List.of(inv("/s/if/c", C), new Loop("/s/if/w", Loop.Kind.WHILE, inv("/s/if/w/a", A)))),
                new ParallelForEach("/s/pfe", inv("/s/pfe/b", B)), inv("/s/a2", A)));
        assertEquals(List.of(C, A, B), List.copyOf(Visits.tasks(root)));
        Profile p = profile(Map.of("/s/if", List.of(1.0, 0.0)), Map.of("/s/if/w", 0.0, "/s/pfe", 0.0));
        assertEquals(Map.of(C, 1.0, A, 1.0, B, 0.0), Visits.of(root, p));
        CompositeService cs = new CompositeService("P", "urn:p", List.of(D, A), root);
        assertEquals(List.of(D, A, C, B), List.copyOf(Visits.tasks(cs)), "declared tasks first, then the tree's");
        assertEquals(Visits.tasks(cs), Visits.of(cs, p).keySet());
    }

    private static void assertRefused(String id, String reason, Runnable r) {
        var e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(id) && e.getMessage().contains(reason), e.getMessage());
    }
}
