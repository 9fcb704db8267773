/**
 * What operators read and do on a running broker, over HTTP: the admin API ({@code /admin/*}:
 * plans, compliance, events, status, re-plan, monitors on and off, services out and in, what-if;
 * {@link io.moses.core.operations.AdminApi}), the operator's actions that every replica applies
 * ({@link io.moses.core.operations.OperatorActions}), readiness and liveness
 * ({@link io.moses.core.operations.Health}) and the SLA events of users above their agreed rate
 * ({@link io.moses.core.operations.OverRateEvents}); those four are its API for the other packages,
 * the rest is package-private. The plan's JSON and table are management-api's
 * {@code io.moses.management.PlanFormat}, also read by {@code moses plan}.
 * The console ({@code io.moses.core.console}) and the command-line clients act through the
 * admin API only; process management has its own package ({@code io.moses.core.processes}).
 */
package io.moses.core.operations;
