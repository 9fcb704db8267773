/**
 * The broker process, wiring only: {@link io.moses.core.Main} reads the command line,
 * {@code BrokerConfig} holds it, and {@code Broker} wires the BPEL engine, the Adaptation Manager,
 * the monitors, the optimizer and the knowledge base into one replica and starts and stops it; its
 * background work runs on Camel timer routes ({@code BrokerRoutes}), the SLA and Service Managers
 * are mounted by {@code Management}. Only {@code Main} is public: the broker is run, not linked
 * against.
 *
 * <p>The rooms: {@code loop} (the MAPE-K feedback loop), {@code cluster} (what makes replicas one
 * broker), {@code processes} (deployment units), {@code operations} (admin API, health, operator
 * actions), {@code metrics} (/metrics), {@code console} (the operators' web pages), {@code engine}
 * (ODE integration), {@code frontend} (the HTTP/SOAP front door: authentication, policing, the
 * overload bound), {@code composition} (behavioral models of BPEL processes). Each package says
 * which of its types are its API for the others; the rest is package-private.
 */
package io.moses.core;
