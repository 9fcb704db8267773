package io.moses.core.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Just enough Markdown for the tests that hold the docs to the code: the repository's pages,
 * their links, their headings' anchors (as GitHub makes them) and their tables.
 */
public final class Markdown {
    /** The repository's root: the tests run in their module's directory. */
    public static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("(!?)\\[((?:[^\\[\\]]|\\[[^\\]]*\\])*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    private Markdown() {}

    /** A link or an image of a page, with the line it is on. */
    public record Link(Path page, int line, boolean image, String text, String target) {}

    /** README.md and every page under docs/. */
    public static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(ROOT.resolve("README.md"));
        try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    /** The page's lines outside fenced code blocks (those inside are blank, so line numbers hold). */
    public static List<String> prose(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        String fence = null;
        for (String line : Files.readAllLines(page)) {
            String t = line.stripLeading();
            if (fence == null && (t.startsWith("```") || t.startsWith("~~~"))) {
                fence = t.substring(0, 3);
                out.add("");
            } else if (fence != null) {
                if (t.startsWith(fence)) fence = null;
                out.add("");
            } else {
                out.add(line);
            }
        }
        return out;
    }

    /** A line without its code spans: what is between backticks is not a link. */
    static String withoutCode(String line) {
        return line.replaceAll("(`+)(?:(?!\\1).)+?\\1", "``");
    }

    public static List<Link> links(Path page) throws IOException {
        List<Link> out = new ArrayList<>();
        List<String> lines = prose(page);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = LINK.matcher(withoutCode(lines.get(i)));
            while (m.find()) out.add(new Link(page, i + 1, !m.group(1).isEmpty(), m.group(2), m.group(3)));
        }
        return out;
    }

    /** The anchors of a page's headings, as GitHub makes them (a repeated heading gets -1, -2 ...). */
    public static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(page)) {
            Matcher m = HEADING.matcher(line);
            if (!m.matches()) continue;
            String slug = slug(m.group(2));
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return out;
    }

    /** GitHub's anchor of a heading: the text of its links, lower case, only letters, digits, - and _, spaces as -. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        return text.toLowerCase(java.util.Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /**
     * The rows of the first table after the heading {@code heading} (its text, exactly), each
     * a list of its cells, the header row and the separator left out.
     */
    public static List<List<String>> table(Path page, String heading) throws IOException {
        List<String> lines = prose(page);
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = HEADING.matcher(lines.get(i));
            if (m.matches() && m.group(2).equals(heading)) at = i;
        }
        if (at < 0) throw new AssertionError(ROOT.relativize(page) + " has no heading '" + heading + "'");
        List<List<String>> rows = new ArrayList<>();
        int i = at + 1;
        while (i < lines.size() && !lines.get(i).startsWith("|")) {
            if (HEADING.matcher(lines.get(i)).matches()) throw new AssertionError("no table under '" + heading + "'");
            i++;
        }
        for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) rows.add(cells(lines.get(i)));
        return rows;
    }

    /** A table row's cells, trimmed; {@code \|} is a | within a cell. */
    static List<String> cells(String row) {
        String r = row.strip();
        r = r.substring(1, r.endsWith("|") && !r.endsWith("\\|") ? r.length() - 1 : r.length());
        List<String> out = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 0; i < r.length(); i++) {
            char c = r.charAt(i);
            if (c == '\\' && i + 1 < r.length() && r.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                out.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        out.add(cell.toString().strip());
        return out;
    }

    /** The code spans of a cell, in order ({@code `a`, `b`} gives a and b). */
    public static List<String> code(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("`([^`]+)`").matcher(cell);
        while (m.find()) out.add(m.group(1));
        return out;
    }
}
