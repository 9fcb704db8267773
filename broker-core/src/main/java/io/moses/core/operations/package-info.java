/**
 * What operators read and do on a running broker, over HTTP: the admin API ({@code /admin/*}:
 * plans, compliance, events, status, re-plan, monitors on and off, services out and in, what-if;
 * {@link io.moses.core.operations.AdminApi}), the operator's actions that every replica applies
 * ({@link io.moses.core.operations.OperatorActions}), readiness and liveness
 * ({@link io.moses.core.operations.Health}), the plan's JSON and table
 * ({@link io.moses.core.operations.PlanFormat}, also read by {@code moses plan}) and the SLA
 * events of users above their agreed rate ({@link io.moses.core.operations.OverRateEvents}).
 * The console ({@code io.moses.core.console}) and the command-line clients act through the
 * admin API only; process management has its own package ({@code io.moses.core.processes}).
 */
package io.moses.core.operations;
