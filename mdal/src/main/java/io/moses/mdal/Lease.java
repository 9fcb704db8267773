package io.moses.mdal;

import java.time.Instant;

/**
 * A named lease in the knowledge base (the optimizer leader's): who holds it, since which
 * takeover ({@code term} grows by one at each change of holder) and until when.
 */
public record Lease(String name, String holder, long term, Instant expires) {
    public boolean heldBy(String replica) {
        return holder.equals(replica);
    }
}
