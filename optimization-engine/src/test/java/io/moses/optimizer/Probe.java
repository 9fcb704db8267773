package io.moses.optimizer;
public class Probe {
  public static void main(String[] a) {
    int c = Integer.parseInt(a[0]), t = Integer.parseInt(a[1]), k = Integer.parseInt(a[2]);
    var in0 = Fixtures.synthetic(c, t, k, 1).build();
    var d = in0.settings();
    var in = in0.withSettings(new PlanningInput.Settings(d.weightResponseTime(), d.weightAvailability(), d.weightCost(), d.margin(),
        d.objective(), d.maxParallel(), d.maxAlternate(), d.defaultFailureDetection(), d.minObservedSamples(), d.empiricalMinSamples(), 600));
    var e = new OptimizationEngine(Solvers.lpSolve().get(), null).with(OptimizationEngine.Method.valueOf(a[3]));
    for (int i = 0; i < Integer.getInteger("n", 2); i++) {
      e.forgetPlanInForce();
      var mx = java.lang.management.ManagementFactory.getThreadMXBean();
      long c0 = mx.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      var r = e.plan(in);
      System.err.println("plan " + (System.nanoTime()-t0)/1e6 + " ms, cpu " + (mx.getCurrentThreadCpuTime()-c0)/1e6 + " ms " + r.status() + " " + r.diagnostics());
    }
  }
}
