package io.leasehold.examples.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.testing.TestDatabaseExtension;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web demo's story in two headless Chromium windows (Debian's chromium and chromedriver, which
 * the build installs when missing): both click Run, exactly one runs and the other's button is
 * disabled with the owner shown; freeze; the other takes over; the frozen page shows the loss and,
 * woken, its refused writes. Screenshots of both pages end up in target/.
 */
class WebDemoBrowserTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  @RegisterExtension static final RunningWebDemo web = new RunningWebDemo(db);
  private static final List<WebDriver> drivers = new ArrayList<>();

  @AfterAll
  static void quitBrowsers() {
    drivers.forEach(WebDriver::quit);
  }

  private static WebDriver open(String device) throws Exception {
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1000,900",
        "--user-data-dir=" + Files.createTempDirectory("leasehold-chromium-"));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .build();
    WebDriver driver = new ChromeDriver(service, options);
    drivers.add(driver);
    driver.get("http://localhost:" + web.demo().port() + "/?device=" + device);
    return driver;
  }

  private static String text(WebDriver d, String id) {
    return d.findElement(By.id(id)).getText();
  }

  private static boolean enabled(WebDriver d, String id) {
    return d.findElement(By.id(id)).isEnabled();
  }

  private static void await(
      WebDriver d, String what, java.util.function.Function<WebDriver, Boolean> condition) {
    new WebDriverWait(d, Duration.ofSeconds(20)).withMessage(what).until(condition::apply);
  }

  @Test
  void twoDevicesOneRunnerFreezeTakeoverAndRefusedWrites() throws Exception {
    WebDriver desktop = open("desktop");
    WebDriver browser = open("browser");
    for (WebDriver d : List.of(desktop, browser)) {
      await(
          d,
          "Run enabled once the status arrived",
          x -> enabled(x, "run") && text(x, "runner").equals("nobody"));
    }

    // Both press Run at the same moment.
    ((JavascriptExecutor) desktop).executeScript("document.getElementById('run').click()");
    ((JavascriptExecutor) browser).executeScript("document.getElementById('run').click()");
    for (WebDriver d : List.of(desktop, browser)) {
      await(d, "someone runs", x -> text(x, "runner").contains("run "));
    }
    await(
        desktop,
        "one device running",
        x ->
            text(desktop, "mystate").equals("RUNNING")
                || text(browser, "mystate").equals("RUNNING"));
    boolean desktopWon = text(desktop, "mystate").equals("RUNNING");
    WebDriver winner = desktopWon ? desktop : browser;
    WebDriver loser = desktopWon ? browser : desktop;
    String winnerName = desktopWon ? "desktop" : "browser";
    assertThat(text(loser, "mystate")).isEqualTo("IDLE");
    assertThat(enabled(loser, "run")).isFalse();
    assertThat(text(loser, "runner")).startsWith(winnerName + " (run ");
    assertThat(text(winner, "runner")).startsWith("this device");
    long firstFence =
        Long.parseLong(text(winner, "runner").replaceAll(".*fence (\\d+)\\).*", "$1"));

    // Freeze the winner: its renewals fail, it learns it lost the lease.
    winner.findElement(By.id("freeze")).click();
    await(winner, "the frozen device shows the loss", x -> text(x, "mystate").equals("LOST"));
    assertThat(winner.findElement(By.id("banner")).isDisplayed()).isTrue();
    // Once the lease has expired by the database clock, the other device may run.
    await(loser, "Run enabled after the expiry", x -> enabled(x, "run"));
    loser.findElement(By.id("run")).click();
    await(loser, "the other device took over", x -> text(x, "mystate").equals("RUNNING"));
    long secondFence =
        Long.parseLong(text(loser, "runner").replaceAll(".*fence (\\d+)\\).*", "$1"));
    assertThat(secondFence).isGreaterThan(firstFence);
    await(
        winner,
        "the frozen page shows the new owner",
        x -> text(x, "runner").contains("fence " + secondFence));

    // Wake the frozen run once the new run has written to every resource: each of them refuses
    // its late writes (one the new run had not written to yet would admit them, issue 46).
    String loserName = desktopWon ? "browser" : "desktop";
    // One round trip per look: the frozen run's token expires a few seconds after its run began.
    await(
        winner,
        "the new run wrote to each resource",
        x ->
            (Boolean)
                ((JavascriptExecutor) x)
                    .executeScript(
                        "const rows = Array.from(document.querySelectorAll('#writes tr.admitted'))"
                            + ".map(r => Array.from(r.children).map(c => c.textContent));"
                            + "return ['file store', 'tool', 'database']"
                            + ".every(a => rows.some(r => r[1] === arguments[0] && r[2] === a && r[3] === arguments[1]));",
                        loserName,
                        Long.toString(secondFence)));
    winner.findElement(By.id("wake")).click();
    await(
        winner,
        "refused writes listed",
        x -> x.findElements(By.cssSelector("#writes tr.refused")).size() >= 4);
    String refused = winner.findElement(By.cssSelector("#writes")).getText();
    assertThat(refused)
        .contains("presented fence " + firstFence + " < highest " + secondFence)
        .contains("REFUSED locally");

    // The screenshots of docs/live-status.md (docs/images/web-demo-*.png), by role.
    Path target = Path.of("target");
    for (WebDriver d : List.of(winner, loser)) {
      String name = d == winner ? "frozen" : "runner";
      File shot = ((TakesScreenshot) d).getScreenshotAs(OutputType.FILE);
      Files.copy(
          shot.toPath(),
          target.resolve("web-demo-" + name + ".png"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    assertThat(target.resolve("web-demo-runner.png")).exists();
    assertThat(target.resolve("web-demo-frozen.png")).exists();
  }
}
