// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws rate vs loss per system as a PNG with Java2D (headless): x = flows/s sent, y = loss in
 * percent of what was sent; one line per system, filled dots for clean steps.
 */
final class LossChart {
    private static final int W = 960;
    private static final int H = 560;
    private static final int LEFT = 90;
    private static final int RIGHT = 220;
    private static final int TOP = 60;
    private static final int BOTTOM = 70;
    private static final Color[] COLORS = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0xff7f0e),
        new Color(0x9467bd)
    };

    private LossChart() {}

    static void write(Path file, String title, List<SystemResult> systems) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(
                    RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, W, H);
            double maxX = 1;
            double maxY = 1;
            for (SystemResult s : systems) {
                for (StepResult st : s.steps()) {
                    maxX = Math.max(maxX, st.achievedRate());
                    maxY = Math.max(maxY, st.lossPercent());
                }
            }
            maxX = niceCeil(maxX * 1.05);
            maxY = maxY <= 1 ? 1 : niceCeil(maxY * 1.1);
            int pw = W - LEFT - RIGHT;
            int ph = H - TOP - BOTTOM;
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            g.setColor(Color.BLACK);
            g.drawString(title, LEFT, 30);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            for (int i = 0; i <= 5; i++) {
                int x = LEFT + pw * i / 5;
                int y = TOP + ph - ph * i / 5;
                g.setColor(new Color(0xe0e0e0));
                g.drawLine(x, TOP, x, TOP + ph);
                g.drawLine(LEFT, y, LEFT + pw, y);
                g.setColor(Color.DARK_GRAY);
                String xl = String.format(Locale.ROOT, "%,.0f", maxX * i / 5);
                g.drawString(xl, x - g.getFontMetrics().stringWidth(xl) / 2, TOP + ph + 18);
                String yl = String.format(Locale.ROOT, "%.2f %%", maxY * i / 5);
                g.drawString(yl, LEFT - 8 - g.getFontMetrics().stringWidth(yl), y + 4);
            }
            g.setColor(Color.BLACK);
            g.drawRect(LEFT, TOP, pw, ph);
            g.drawString("flows/s sent (loopback UDP)", LEFT + pw / 2 - 80, H - 25);
            g.drawString("loss", 20, TOP + ph / 2);
            int legendY = TOP + 10;
            for (int i = 0; i < systems.size(); i++) {
                SystemResult s = systems.get(i);
                Color col = COLORS[i % COLORS.length];
                g.setColor(col);
                g.setStroke(new BasicStroke(2.2f));
                int px = -1;
                int py = -1;
                List<StepResult> byRate = new java.util.ArrayList<>(s.steps());
                byRate.sort(java.util.Comparator.comparingDouble(StepResult::achievedRate));
                for (StepResult st : byRate) {
                    int x = LEFT + (int) Math.round(pw * st.achievedRate() / maxX);
                    int y =
                            TOP
                                    + ph
                                    - (int)
                                            Math.round(
                                                    ph * Math.min(st.lossPercent(), maxY) / maxY);
                    if (px >= 0) {
                        g.drawLine(px, py, x, y);
                    }
                    if (st.clean()) {
                        g.fillOval(x - 5, y - 5, 10, 10);
                    } else {
                        g.drawOval(x - 5, y - 5, 10, 10);
                    }
                    px = x;
                    py = y;
                }
                g.fillRect(LEFT + pw + 20, legendY - 9, 14, 10);
                g.setColor(Color.BLACK);
                g.drawString(
                        String.format(
                                Locale.ROOT,
                                "%s: %s%,.0f/s",
                                s.system(),
                                s.loadgenLimited() ? ">= " : "",
                                s.highestCleanRate()),
                        LEFT + pw + 40,
                        legendY);
                legendY += 22;
            }
            g.setColor(Color.DARK_GRAY);
            g.drawString("filled: no loss anywhere", LEFT + pw + 20, legendY + 10);
            g.drawString("open: loss", LEFT + pw + 20, legendY + 28);
        } finally {
            g.dispose();
        }
        ImageIO.write(img, "png", file.toFile());
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v}. */
    static double niceCeil(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
