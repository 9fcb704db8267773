/**
 * The knowledge model of the broker (docs/model.md, "Entities"): immutable value types shared by
 * every component. The K of the MAPE-K loop; MDAL persists them, the optimizer plans over them,
 * the Adaptation Manager executes a {@link io.moses.model.Plan}.
 */
package io.moses.model;
