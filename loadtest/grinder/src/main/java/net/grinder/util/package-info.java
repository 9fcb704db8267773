/**
 * A stand-in for one class of The Grinder 3.11 whose Java version check refuses JDK 17; first on
 * Grinder's class path, same signatures.
 */
package net.grinder.util;
