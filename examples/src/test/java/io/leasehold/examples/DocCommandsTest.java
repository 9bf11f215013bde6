package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 51: a reader can paste every shell command in README.md and docs/. Every fenced block names
 * its language, and every {@code sh} block is introduced by a marker on the line before it:
 *
 * <ul>
 *   <li>{@code <!-- command: run by PATH -->}: the file PATH of this repository (a CI script or a
 *       test) runs each of the block's commands exactly as written, so the command cannot drift
 *       from what is checked; or
 *   <li>{@code <!-- command: needs WHAT -->}: the command is not run by the build, and WHAT names
 *       what it needs that the build does not have (an external server, Docker, half an hour).
 * </ul>
 */
class DocCommandsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern FENCE = Pattern.compile("^\\s*```(\\S*)\\s*$");
  private static final Pattern MARKER = Pattern.compile("<!-- command: (run by|needs) (.+?) -->");

  @Test
  void everyShellCommandInTheDocsIsRunByTheBuildOrSaysWhatItNeeds() throws IOException {
    List<String> problems = new ArrayList<>();
    int commands = 0;
    for (Path doc : docs()) {
      List<String> lines = Files.readAllLines(doc);
      String name = ROOT.relativize(doc).toString();
      for (int i = 0; i < lines.size(); i++) {
        Matcher open = FENCE.matcher(lines.get(i));
        if (!open.matches()) {
          continue;
        }
        int close = i + 1;
        while (close < lines.size() && !lines.get(close).trim().equals("```")) {
          close++;
        }
        String where = name + ":" + (i + 1);
        String language = open.group(1);
        if (language.isEmpty()) {
          problems.add(where + ": a fenced block without a language (sh, text, ...)");
        } else if (language.equals("sh") || language.equals("bash") || language.equals("shell")) {
          commands++;
          String before = previousNonBlank(lines, i);
          Matcher marker = MARKER.matcher(before);
          if (!marker.matches()) {
            problems.add(
                where
                    + ": no <!-- command: run by PATH --> or <!-- command: needs WHAT --> before it");
          } else if (marker.group(1).equals("run by")) {
            Path runner = ROOT.resolve(marker.group(2));
            if (!Files.isRegularFile(runner)) {
              problems.add(where + ": " + marker.group(2) + " does not exist");
            } else {
              String runs = squeeze(Files.readString(runner));
              for (String command : commands(lines.subList(i + 1, close))) {
                if (!runs.contains(squeeze(command))) {
                  problems.add(
                      where
                          + ": "
                          + marker.group(2)
                          + " does not run `"
                          + command
                          + "` as written");
                }
              }
            }
          } else if (marker.group(2).split("\\s+").length < 3) {
            problems.add(
                where
                    + ": say what the command needs in a few words, not `"
                    + marker.group(2)
                    + "`");
          }
        }
        i = close;
      }
    }
    assertThat(commands).as("shell blocks found").isGreaterThan(10);
    assertThat(problems).as("shell commands in README.md and docs/").isEmpty();
  }

  private static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  private static String previousNonBlank(List<String> lines, int index) {
    for (int i = index - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        return lines.get(i).trim();
      }
    }
    return "";
  }

  /**
   * The block's commands: continuation lines joined, comment lines and trailing comments dropped.
   */
  static List<String> commands(List<String> block) {
    List<String> commands = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String raw : block) {
      String line = raw.replaceAll("\\s+#\\s.*$", "").strip();
      if (line.startsWith("#") || line.isEmpty()) {
        continue;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      current.append(line);
      commands.add(current.toString().strip());
      current.setLength(0);
    }
    return commands;
  }

  /**
   * Compares commands as a shell reads them: runs of white space (and line continuations) alike.
   */
  private static String squeeze(String text) {
    return text.replaceAll("\\\\\\n", " ").replaceAll("\\s+", " ");
  }
}
