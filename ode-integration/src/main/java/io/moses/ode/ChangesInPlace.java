package io.moses.ode;

import java.util.HashSet;
import java.util.Set;
import org.apache.ode.bpel.o.OAssign;
import org.apache.ode.bpel.o.OBase;
import org.apache.ode.bpel.o.OMessageVarType;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.o.OScope;

/**
 * Which of a process's variables an assign may change in place ({@link VariableStore#getForChange()})
 * instead of changing a copy and writing it back, with the same outcome.
 *
 * <p>ODE's {@code ASSIGN} reads a {@code <copy>}'s target for writing, changes what it read and
 * writes it back; a copy that faults before the write-back leaves the variable as it was, since
 * ODE's stores hand out copies. In ODE 1.3.7 a copy changes its target only after every step that
 * can fault, but for two kinds of copy: one that inserts missing to-data (ODE's
 * {@code insertMissingToData}: the path is built, then the query may still fail) and one into a
 * message part without a type (a header part the WSDL does not declare: ODE adds the part, then
 * evaluates the query). The variables such copies write are copied for every change, as ODE does,
 * and so are all variables of a process with external variables (ODE reads the variable an
 * external one relates to for writing outside an assign).
 */
public final class ChangesInPlace {
    /** Names of the variables copied for change; null: all of them. */
    private final Set<String> copied;

    private ChangesInPlace(Set<String> copied) {
        this.copied = copied;
    }

    /** The rule for {@code model}'s variables, read from its compiled copies; null: every variable copied. */
    public static ChangesInPlace of(OProcess model) {
        if (model == null) return new ChangesInPlace(null);
        Set<String> copied = new HashSet<>();
        for (OBase b : model.getChildren()) {
            if (b instanceof OScope.Variable v && v.extVar != null) return new ChangesInPlace(null);
            if (b instanceof OAssign.Copy c && c.to != null && c.to.getVariable() != null && mayFaultAfterChanging(c))
                copied.add(c.to.getVariable().name);
        }
        return new ChangesInPlace(Set.copyOf(copied));
    }

    /** Whether an assign may change the variable named {@code variable} in place (by name: scopes may repeat names). */
    public boolean allowedFor(String variable) {
        return copied != null && !copied.contains(variable);
    }

    private static boolean mayFaultAfterChanging(OAssign.Copy c) {
        if (c.insertMissingToData) return true;
        if (c.to instanceof OAssign.VariableRef r) return r.headerPart != null || untyped(r.part);
        if (c.to instanceof OAssign.PropertyRef p) return p.propertyAlias != null && untyped(p.propertyAlias.part);
        return false;
    }

    private static boolean untyped(OMessageVarType.Part part) {
        return part != null && part.type == null;
    }
}
