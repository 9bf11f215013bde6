package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 51: every relative link in README.md and docs/ leads somewhere. A link to a file must name
 * a file or folder of the repository, and a link with an anchor ({@code guide.md#section}) must
 * name a heading of that Markdown file, as GitHub derives heading anchors, or an explicit {@code <a
 * id="...">}. Links to other sites are not fetched (the build has no network).
 */
class DocLinksTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** An inline link or image: {@code [text](target)} or {@code [text](target "title")}. */
  private static final Pattern LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

  @Test
  void everyRelativeLinkAndAnchorInTheDocsResolves() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    List<String> dead = new ArrayList<>();
    int checked = 0;
    for (Path doc : docs) {
      for (String target : links(doc)) {
        if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
          continue; // https:, mailto: and the like
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        String where = ROOT.relativize(doc) + ": " + target;
        if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
          dead.add(where + " (no such file)");
        } else if (anchor != null && !anchors(resolved).contains(anchor)) {
          dead.add(where + " (no such heading in " + ROOT.relativize(resolved) + ")");
        }
      }
    }
    assertThat(checked).as("relative links checked").isGreaterThan(50);
    assertThat(dead).as("dead links in README.md and docs/").isEmpty();
  }

  @Test
  void anchorsAreDerivedAsGitHubDoes() {
    assertThat(slug("1b. A refused attempt, and waiting for a key"))
        .isEqualTo("1b-a-refused-attempt-and-waiting-for-a-key");
    assertThat(slug("Token verification (CONTRACT C15)"))
        .isEqualTo("token-verification-contract-c15");
    assertThat(slug("`LeaseStore.builder` options")).isEqualTo("leasestorebuilder-options");
  }

  /** The link targets of a Markdown file, outside fenced code blocks and inline code. */
  private static List<String> links(Path doc) throws IOException {
    List<String> targets = new ArrayList<>();
    boolean inFence = false;
    for (String line : Files.readAllLines(doc)) {
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
        continue;
      }
      if (inFence) {
        continue;
      }
      Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
      while (m.find()) {
        targets.add(m.group(1));
      }
    }
    return targets;
  }

  /** The anchors a Markdown file offers: its headings' slugs (numbered when repeated) and ids. */
  private static Set<String> anchors(Path file) throws IOException {
    Set<String> anchors = new HashSet<>();
    if (!file.toString().endsWith(".md") || Files.isDirectory(file)) {
      return anchors;
    }
    Map<String, Integer> seen = new HashMap<>();
    boolean inFence = false;
    for (String line : Files.readAllLines(file)) {
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
        continue;
      }
      Matcher explicit = EXPLICIT_ANCHOR.matcher(line);
      while (explicit.find()) {
        anchors.add(explicit.group(1));
      }
      Matcher h = HEADING.matcher(line);
      if (!inFence && h.matches()) {
        String slug = slug(h.group(1));
        int n = seen.merge(slug, 1, Integer::sum);
        anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
      }
    }
    return anchors;
  }

  /** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link's text only
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
  }
}
