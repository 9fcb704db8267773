/**
 * The deployment units (BPEL processes) of a replica and of the cluster: deployed, redeployed and
 * undeployed while requests run, their behavioral models stored and their services served
 * ({@link io.moses.core.processes.Processes}); every change stored in the knowledge base and
 * applied by every replica; and the operators' {@code /admin/processes}. The rest of the broker
 * reaches it through {@link io.moses.core.processes.Processes} only.
 */
package io.moses.core.processes;
