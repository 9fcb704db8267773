/**
 * The broker process: wires the BPEL engine, the Adaptation Manager, the monitors, the optimizer
 * and the knowledge base into one MAPE-K feedback loop ({@link io.moses.core.Broker}), and serves
 * the operators' HTTP endpoints (health, metrics, admin API, processes).
 */
package io.moses.core;
