package io.moses.ode;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.o.OAssign;
import org.apache.ode.bpel.o.OElementVarType;
import org.apache.ode.bpel.o.OExtVar;
import org.apache.ode.bpel.o.OMessageVarType;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.o.OScope;
import org.junit.jupiter.api.Test;

/** Compiled models built by hand: which variables' copies may fault after they started changing their target. */
class ChangesInPlaceTest {
    final OProcess model = new OProcess("2.0");
    final OMessageVarType.Part typed = new OMessageVarType.Part(model, "parameters", new OElementVarType(model, new QName("urn:t", "order")));
    final OMessageVarType message = new OMessageVarType(model, new QName("urn:t", "orderMessage"), List.of(typed));

    @Test
    void aCopyThatChangesOnlyAfterEveryCheckLeavesItsTargetToBeChangedInPlace() {
        copyTo(variable("order"), typed);
        ChangesInPlace rule = ChangesInPlace.of(model);
        assertTrue(rule.allowedFor("order"));
        assertTrue(rule.allowedFor("unassigned"));
    }

    @Test
    void aCopyThatInsertsMissingToDataKeepsItsTargetCopied() {
        copyTo(variable("order"), typed);
        copyTo(variable("invoice"), typed).insertMissingToData = true;
        ChangesInPlace rule = ChangesInPlace.of(model);
        assertFalse(rule.allowedFor("invoice"), "the path is built before the query may fail");
        assertTrue(rule.allowedFor("order"));
    }

    @Test
    void aCopyIntoAnUndeclaredHeaderPartKeepsItsTargetCopied() {
        copyTo(variable("order"), new OMessageVarType.Part(model, "auth", null));
        assertFalse(ChangesInPlace.of(model).allowedFor("order"), "ODE adds the part before it evaluates the query");
        OProcess other = new OProcess("2.0");
        OAssign.VariableRef header = new OAssign.VariableRef(other);
        header.variable = new OScope.Variable(other, message);
        header.variable.name = "request";
        header.headerPart = new OMessageVarType.Part(other, "auth", null);
        new OAssign.Copy(other).to = header;
        assertFalse(ChangesInPlace.of(other).allowedFor("request"));
    }

    @Test
    void aProcessWithAnExternalVariableCopiesEveryVariable() {
        copyTo(variable("order"), typed);
        OScope.Variable row = variable("row");
        row.extVar = new OExtVar(model);
        assertFalse(ChangesInPlace.of(model).allowedFor("order"));
        assertFalse(ChangesInPlace.of(null).allowedFor("order"), "no model: as ODE does");
    }

    private OScope.Variable variable(String name) {
        OScope.Variable v = new OScope.Variable(model, message);
        v.name = name;
        return v;
    }

    private OAssign.Copy copyTo(OScope.Variable v, OMessageVarType.Part part) {
        OAssign.VariableRef to = new OAssign.VariableRef(model);
        to.variable = v;
        to.part = part;
        OAssign.Copy c = new OAssign.Copy(model);
        c.to = to;
        return c;
    }
}
