/**
 * The broker process, wiring only: {@link io.moses.core.Main} reads the command line,
 * {@link io.moses.core.BrokerConfig} holds it, and {@link io.moses.core.Broker} wires the BPEL
 * engine, the Adaptation Manager, the monitors, the optimizer and the knowledge base into one
 * replica and starts and stops it; its background work runs on Camel timer routes
 * ({@code BrokerRoutes}), the SLA and Service Managers are mounted by {@code Management}.
 *
 * <p>The rooms: {@code loop} (the MAPE-K feedback loop), {@code cluster} (what makes replicas one
 * broker), {@code processes} (deployment units), {@code operations} (admin API, health, operator
 * actions, plan format), {@code metrics} (/metrics), {@code console} (the operators' web pages),
 * {@code cli} (command-line clients), {@code engine} (ODE integration), {@code frontend} (the
 * HTTP/SOAP front door: authentication, policing, the overload bound), {@code composition} (behavioral
 * models of BPEL processes).
 */
package io.moses.core;
