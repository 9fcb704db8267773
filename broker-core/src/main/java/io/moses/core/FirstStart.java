package io.moses.core;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Seed;
import io.moses.sla.Accounts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a replica puts into the knowledge base at start: the seeds, into an empty knowledge base
 * only unless asked (so a restart does not revert what operators and users changed since), and
 * the first operator from a secret file while there is none.
 */
final class FirstStart {
    private static final Logger log = LoggerFactory.getLogger(FirstStart.class);

    private FirstStart() {}

    /** Applies {@code config}'s seeds, in order, if the knowledge base is empty or {@code --reseed} asks. */
    static void seed(BrokerConfig config, KnowledgeBase kb) {
        if (config.seeds().isEmpty()) return;
        // decided once, before the first seed: every seed of a first start applies
        int users = kb.users().size(), classes = kb.serviceClasses().size(), services = kb.concreteServices().size();
        boolean empty = users == 0 && classes == 0 && services == 0;
        for (Path file : config.seeds()) {
            Seed seed = Seed.load(file, config.variables()); // a broken seed is an error even when not applied
            if (!empty && !config.reseed()) {
                log.info("seed {} not applied: the knowledge base already holds {} users, {} classes, {} concrete services "
                        + "(--reseed to apply it again)", file, users, classes, services);
                continue;
            }
            seed.applyTo(kb);
        }
    }

    /**
     * Creates the operator named in {@code file} ({@code NAME:PASSWORD}, one line) while the
     * knowledge base has no operator. Neither the password nor the file's content is logged.
     *
     * @throws IllegalArgumentException for a file that cannot be read or is not one NAME:PASSWORD line
     */
    static void firstOperator(Path file, KnowledgeBase kb) {
        if (file == null) return;
        if (kb.users().stream().anyMatch(io.moses.model.User::isOperator)) {
            log.info("operator file {} not used: the knowledge base already has an operator", file);
            return;
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("--operator-file " + file + ": cannot read (" + e.getClass().getSimpleName() + ")");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        Arrays.fill(bytes, (byte) 0);
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        int colon = lines.size() == 1 ? lines.get(0).indexOf(':') : -1;
        if (colon <= 0 || colon == lines.get(0).length() - 1)
            throw new IllegalArgumentException("--operator-file " + file + ": must hold one line NAME:PASSWORD");
        String line = lines.get(0).strip();
        String name = line.substring(0, line.indexOf(':'));
        char[] password = line.substring(line.indexOf(':') + 1).toCharArray();
        try {
            if (Accounts.ensureOperator(kb, name, password) == Accounts.FirstOperator.CREATED)
                log.info("operator {} created from {}", name, file);
            else log.info("operator file {} not used: another replica created the first operator", file);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--operator-file " + file + ": " + e.getMessage());
        } finally {
            Arrays.fill(password, '\0');
        }
    }
}
