/**
 * The monitors of the feedback loop: the QoS Monitor (each concrete service's observed response
 * time and availability), the WS Monitor (probes), the class and path monitors, drift detection,
 * and the Replanner that turns their triggers into one solve at a time.
 */
package io.moses.monitor;
