// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.it;

import static io.flowhouse.console.it.PipelineFixture.DB;
import static io.flowhouse.console.it.PipelineFixture.FROM;
import static io.flowhouse.console.it.PipelineFixture.TO;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The page in Debian's headless Chromium, driven by Selenium through Debian's chromedriver (the
 * installed browser, never a downloaded one): load the console, pick a dimension, apply a filter,
 * open the Sankey, type a bad filter; the numbers on the page equal SQL written here. Screenshots
 * go to {@code target/screenshots/}.
 */
final class BrowserCheck {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final String BYTES = ConsoleITCase.BYTES;

    private BrowserCheck() {}

    /** Steps in a browser on the console. */
    @FunctionalInterface
    interface Steps {
        void run(WebDriver driver, String url, LocalClickHouse ch, Path shots) throws Exception;
    }

    static void run(String url, LocalClickHouse ch, Path work) throws Exception {
        run(url, ch, work, BrowserCheck::steps);
    }

    static void run(String url, LocalClickHouse ch, Path work, Steps steps) throws Exception {
        ServiceRequirement.require(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "chromium and chromedriver (apt-get install chromium chromium-driver)");
        Path shots = Path.of("target", "screenshots");
        Files.createDirectories(shots);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,1000",
                "--user-data-dir=" + Files.createTempDirectory(work, "chromium-"));
        ChromeDriverService service =
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .usingAnyFreePort()
                        .build();
        WebDriver driver = new ChromeDriver(service, options);
        try {
            steps.run(driver, url, ch, shots);
        } catch (AssertionError | RuntimeException e) {
            screenshot(driver, shots.resolve("console-failure.png"));
            throw new AssertionError(
                    "page at "
                            + driver.getCurrentUrl()
                            + " shows error '"
                            + driver.findElement(By.id("error")).getText()
                            + "', status '"
                            + driver.findElement(By.id("status")).getText()
                            + "'",
                    e);
        } finally {
            driver.quit();
        }
    }

    private static void steps(WebDriver driver, String url, LocalClickHouse ch, Path shots)
            throws Exception {
        {
            String flowRange = ConsoleITCase.FLOW_RANGE;
            // 1. Load: traffic per exporter over the captures' range from the minute rollup.
            driver.get(url + "?view=traffic&from=" + FROM + "&to=" + TO + "&resolution=1m");
            await(driver);
            assertThat(text(driver, "total-bytes"))
                    .isEqualTo(
                            sql(
                                    ch,
                                    "SELECT "
                                            + BYTES
                                            + " FROM "
                                            + DB
                                            + ".flows FINAL WHERE "
                                            + flowRange));

            // 2. Pick a dimension: services.
            mark(driver);
            new Select(driver.findElement(By.id("dimension"))).selectByValue("Service");
            await(driver);
            assertThat(driver.getCurrentUrl()).contains("dimension=Service");

            // 3. Apply a filter: TCP only; every row and the total equal SQL.
            mark(driver);
            WebElement filter = driver.findElement(By.id("filter"));
            filter.clear();
            filter.sendKeys("Proto = tcp");
            driver.findElement(By.id("apply")).click();
            await(driver);
            assertThat(driver.getCurrentUrl()).contains("filter=Proto");
            Map<String, Long> expected = new HashMap<>();
            String port =
                    "multiIf(proto IN (1, 58), dst_port, src_port = 0, dst_port, dst_port = 0,"
                            + " src_port, least(src_port, dst_port))";
            for (List<String> row :
                    ch.queryRows(
                            "SELECT concat('tcp/', toString("
                                    + port
                                    + ")) AS k1, "
                                    + BYTES
                                    + " FROM "
                                    + DB
                                    + ".flows FINAL WHERE "
                                    + flowRange
                                    + " AND proto = 6 GROUP BY k1")) {
                expected.put(row.get(0), Long.parseLong(row.get(1)));
            }
            List<WebElement> rows = driver.findElements(By.cssSelector("#table tbody tr"));
            assertThat(rows).isNotEmpty();
            for (WebElement row : rows) {
                String label = row.findElement(By.cssSelector("td a")).getText();
                long bytes = number(row.findElement(By.cssSelector("td.bytes")).getText());
                assertThat(bytes).as(label).isEqualTo(expected.get(label));
            }
            assertThat(text(driver, "total-bytes"))
                    .isEqualTo(
                            sql(
                                    ch,
                                    "SELECT "
                                            + BYTES
                                            + " FROM "
                                            + DB
                                            + ".flows FINAL WHERE "
                                            + flowRange
                                            + " AND proto = 6"));
            screenshot(driver, shots.resolve("console-traffic.png"));

            // 4. The Sankey: source AS -> destination AS, TCP only.
            mark(driver);
            driver.findElement(By.id("tab-sankey")).click();
            await(driver);
            assertThat(driver.getCurrentUrl()).contains("view=sankey");
            assertThat(text(driver, "sankey-total"))
                    .isEqualTo(
                            sql(
                                    ch,
                                    "SELECT "
                                            + BYTES
                                            + " FROM "
                                            + DB
                                            + ".flows FINAL WHERE "
                                            + flowRange
                                            + " AND proto = 6"));
            mark(driver);
            new Select(driver.findElement(By.id("sankey-2"))).selectByValue("Service");
            await(driver);
            screenshot(driver, shots.resolve("console-sankey.png"));

            // 5. A bad filter: a clear message, nothing drawn from it.
            mark(driver);
            filter = driver.findElement(By.id("filter"));
            filter.clear();
            filter.sendKeys("Proto = 6; DROP TABLE flows");
            driver.findElement(By.id("apply")).click();
            await(driver);
            WebElement error = driver.findElement(By.id("error"));
            assertThat(error.isDisplayed()).isTrue();
            assertThat(error.getText()).contains("bad filter").contains("';'");
            screenshot(driver, shots.resolve("console-bad-filter.png"));
        }
    }

    /** Marks the status so {@link #await} sees the next load, not the last one. */
    static void mark(WebDriver driver) {
        ((JavascriptExecutor) driver)
                .executeScript("document.getElementById('status').dataset.state = 'idle';");
    }

    static void await(WebDriver driver) {
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(
                        d -> {
                            String s = d.findElement(By.id("status")).getAttribute("data-state");
                            return "ready".equals(s) || "error".equals(s);
                        });
    }

    static String text(WebDriver driver, String id) {
        return Long.toString(number(driver.findElement(By.id(id)).getText()));
    }

    static long number(String shown) {
        return Long.parseLong(shown.replace(",", "").trim());
    }

    static String sql(LocalClickHouse ch, String sql) {
        return ch.queryScalar(sql);
    }

    static void screenshot(WebDriver driver, Path file) throws IOException {
        byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
        Files.write(file, png);
    }
}
