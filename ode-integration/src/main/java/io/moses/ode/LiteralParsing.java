package io.moses.ode;

import java.lang.reflect.Field;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.ode.utils.DOMUtils;

/**
 * How ODE parses the XML it parses at run time: chiefly every {@code <from><literal>} of an
 * {@code <assign>}, which ODE's {@code ASSIGN} parses again from its text each time it runs
 * ({@code DOMUtils.stringToDOM}), several times per request in a typical process.
 *
 * <p>ODE's parser factory ({@code DOMUtils.__documentBuilderFactory}, Xerces) builds Xerces'
 * deferred DOM, which first records a document in large arrays and expands nodes on first touch:
 * for a literal of a few elements that is then copied node by node, the arrays cost more than
 * the parse (measured: 2.8 % of a broker's CPU in allocating them; the engine's ceiling
 * serves 1.1-1.2x the requests without them). Turned off, the parser builds the same
 * document directly. ODE has no setting for it, so the factory is reached by reflection, once,
 * before the engine's threads make their parsers (ODE keeps one parser per thread, made from the
 * factory on first use).
 */
public final class LiteralParsing {
    static final String DEFER_NODE_EXPANSION = "http://apache.org/xml/features/dom/defer-node-expansion";

    private LiteralParsing() {}

    /**
     * Makes ODE's parser factory build documents without deferred nodes, for the parsers made
     * from now on.
     *
     * @throws IllegalStateException when ODE's factory is not where ODE 1.3.7 keeps it
     */
    public static void expandEagerly() {
        try {
            Field f = DOMUtils.class.getDeclaredField("__documentBuilderFactory");
            f.setAccessible(true);
            ((DocumentBuilderFactory) f.get(null)).setFeature(DEFER_NODE_EXPANSION, false);
        } catch (ReflectiveOperationException | javax.xml.parsers.ParserConfigurationException | ClassCastException e) {
            throw new IllegalStateException("ODE's DOMUtils has no Xerces parser factory where ODE 1.3.7 keeps it: " + e, e);
        }
    }
}
