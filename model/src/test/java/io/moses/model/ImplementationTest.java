package io.moses.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The implementations' text form, which the plan is stored and shown in. */
class ImplementationTest {
    @Test
    void everyPatternReadsBackFromItsText() {
        for (Implementation i : List.of(Implementation.single("a"), new Implementation(Implementation.Pattern.PARALLEL, List.of("a", "b", "c")),
                new Implementation(Implementation.Pattern.ALTERNATE, List.of("b", "a")), Implementation.hedged("a", "b", 0.1235)))
            assertEquals(i, Implementation.parse(i.toString()), i.toString());
        assertEquals("hedge(flight-a,flight-b;d=0.25)", Implementation.hedged("flight-a", "flight-b", 0.25).toString());
    }

    @Test
    void aHedgeNeedsTwoDifferentMembersAndAPositiveDelay() {
        assertThrows(IllegalArgumentException.class, () -> Implementation.parse("hedge(a,b)"));
        assertThrows(IllegalArgumentException.class, () -> Implementation.parse("hedge(a,b;d=soon)"));
        assertThrows(IllegalArgumentException.class, () -> Implementation.parse("hedge(a,b;d=0)"));
        assertThrows(IllegalArgumentException.class, () -> Implementation.parse("hedge(a,b,c;d=0.1)"));
        assertThrows(IllegalArgumentException.class, () -> Implementation.parse("hedge(a,a;d=0.1)"));
        assertThrows(IllegalArgumentException.class, () -> new Implementation(Implementation.Pattern.ALTERNATE, List.of("a", "b"), 0.1));
    }
}
