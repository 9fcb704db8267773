package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The one way a store changes a record in place, inside the caller's transaction: lock its row,
 * apply the caller's change, validate the result and keep its name. The caller writes it.
 *
 * @param <T> the record
 */
record LockedChange<T>(String field, String noun, String lockSql, Database.Row<T> row, Consumer<T> validate,
                       Function<T, String> nameOf) {

    /**
     * @return the changed record, valid and with the same name
     * @throws KnowledgeBaseException NOT_FOUND when there is no record {@code name}, INVALID when the change is
     */
    T apply(Connection c, String what, String name, UnaryOperator<T> change) throws SQLException {
        T current = one(query(c, lockSql, row, name))
                .orElseThrow(() -> KnowledgeBaseException.notFound(field + ".name: no " + noun + " '" + name + "'"));
        T next = Validation.apply(what, change, current);
        validate.accept(next);
        if (!nameOf.apply(next).equals(name)) throw KnowledgeBaseException.invalid(what + ": " + field + ".name cannot change");
        return next;
    }
}
