/**
 * The BPEL engine: Apache ODE 1.3.7 embedded in memory, its deployment units, the SOAP binding of
 * the services a process provides, and the partner invoker that hands every {@code <invoke>} to
 * the Adaptation Manager. Its API for the other packages: {@link io.moses.core.engine.BpelEngine}
 * (deploy, invoke, conversations), the {@link io.moses.core.engine.ProvidedService}s it serves, the
 * {@link io.moses.core.engine.CompositeInvoker} and {@link io.moses.core.engine.CompositeOutcome} of
 * the front end, {@link io.moses.core.engine.Bundle}, {@link io.moses.core.engine.Conversations},
 * {@link io.moses.core.engine.CompletedRequest} (for the loop) and, also for other modules,
 * {@link io.moses.core.engine.UnitCompiler} and {@link io.moses.core.engine.DeploymentException};
 * the rest is package-private.
 */
package io.moses.core.engine;
