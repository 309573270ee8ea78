import java.awt.Component;
import java.awt.Container;
import java.awt.Frame;
import java.awt.Window;
import java.awt.image.BufferedImage;
import java.io.File;
import java.lang.reflect.Method;
import javax.imageio.ImageIO;
import javax.swing.AbstractButton;
import javax.swing.JList;
import javax.swing.SwingUtilities;

/** Starts GoGui with the given arguments, opens its Analyze window (Tools -> Analyze
    Commands) and runs one of the program's analyze commands there as a person would (select
    it in the list, press Run); once the program has answered and SECONDS more have passed,
    saves GoGui's main window with that view and the Analyze window beside it as a 256-colour
    PNG. Used by tools/gogui-screenshot.sh.

    Usage: java Shot OUTPUT.png COMMAND-LABEL SECONDS GOGUI-ARGUMENTS... */
public final class Shot {
    /** GoGui's window and the Analyze window beside it, in pixels. */
    static final int WIDTH = 620, HEIGHT = 640, DIALOG_WIDTH = 250;
    /** The strip above the Analyze window that shows its title. */
    static final int CAPTION = 24;

    public static void main(String[] args) {
        try {
            shoot(args);
        } catch (Throwable e) {
            e.printStackTrace();
        }
        System.exit(1);
    }

    static void shoot(String[] args) throws Exception {
        File output = new File(args[0]);
        String label = args[1];
        long waitMs = (long) (Double.parseDouble(args[2]) * 1000);
        String[] goguiArgs = java.util.Arrays.copyOfRange(args, 3, args.length);
        net.sf.gogui.gogui.Main.main(goguiArgs);
        Frame gogui = waitFor(() -> {
            for (Frame frame : Frame.getFrames())
                if (frame.isShowing() && frame.getClass().getName().equals("net.sf.gogui.gogui.GoGui"))
                    return frame;
            return null;
        }, "GoGui's window");
        Method busy = gogui.getClass().getMethod("isCommandInProgress");
        waitFor(() -> (Boolean) busy.invoke(gogui) ? null : Boolean.TRUE, "GoGui's program to be ready");
        Thread.sleep(1000);
        SwingUtilities.invokeAndWait(() -> {
            gogui.setSize(WIDTH, HEIGHT);
            gogui.validate();
            try {
                gogui.getClass().getMethod("actionShowAnalyzeDialog").invoke(gogui);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Window dialog = waitFor(() -> {
            for (Window window : gogui.getOwnedWindows())
                if (window.isShowing() && find(window, JList.class, null) != null)
                    return window;
            return null;
        }, "the Analyze window");
        SwingUtilities.invokeAndWait(() -> {
            dialog.setSize(DIALOG_WIDTH, HEIGHT - CAPTION);
            dialog.validate();
            JList<?> list = find(dialog, JList.class, null);
            for (int i = 0; i < list.getModel().getSize(); i++)
                if (list.getModel().getElementAt(i).toString().equals(label))
                    list.setSelectedIndex(i);
            if (list.getSelectedIndex() < 0)
                throw new RuntimeException("no analyze command " + label);
            find(dialog, AbstractButton.class, "Run").doClick();
        });
        Thread.sleep(500);
        waitFor(() -> (Boolean) busy.invoke(gogui) ? null : Boolean.TRUE, "the analysis");
        Thread.sleep(waitMs);
        // GoGui's window, and the Analyze window beside it under a caption with its
        // title (Xvfb has no window manager to draw one).
        BufferedImage image = new BufferedImage(gogui.getWidth() + dialog.getWidth(),
            Math.max(gogui.getHeight(), CAPTION + dialog.getHeight()), BufferedImage.TYPE_INT_RGB);
        SwingUtilities.invokeAndWait(() -> {
            java.awt.Graphics2D g = image.createGraphics();
            g.setColor(java.awt.Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            gogui.paint(g);
            g.translate(gogui.getWidth(), 0);
            g.setColor(new java.awt.Color(0x50, 0x60, 0x78));
            g.fillRect(0, 0, dialog.getWidth(), CAPTION);
            g.setColor(java.awt.Color.WHITE);
            g.setFont(gogui.getFont().deriveFont(java.awt.Font.BOLD, 13f));
            g.setRenderingHint(java.awt.RenderingHints.KEY_TEXT_ANTIALIASING,
                java.awt.RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.drawString(((java.awt.Dialog) dialog).getTitle(), 8, CAPTION - 7);
            g.translate(0, CAPTION);
            dialog.paint(g);
            g.dispose();
        });
        ImageIO.write(indexed(image), "png", output);
        System.exit(0);
    }

    /** `image` in 256 colours (no dithering), for a small PNG: the most frequent colours at
        5 bits a channel, each pixel mapped to the nearest of them. */
    static BufferedImage indexed(BufferedImage image) {
        int width = image.getWidth(), height = image.getHeight();
        long[][] sums = new long[32768][4];
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int rgb = image.getRGB(x, y), r = (rgb >> 16) & 255, g = (rgb >> 8) & 255, b = rgb & 255;
                long[] sum = sums[(r >> 3) << 10 | (g >> 3) << 5 | b >> 3];
                sum[0]++; sum[1] += r; sum[2] += g; sum[3] += b;
            }
        Integer[] buckets = new Integer[32768];
        for (int i = 0; i < buckets.length; i++)
            buckets[i] = i;
        java.util.Arrays.sort(buckets, (a, b) -> Long.compare(sums[b][0], sums[a][0]));
        int colours = 0;
        byte[] red = new byte[256], green = new byte[256], blue = new byte[256];
        for (; colours < 256 && sums[buckets[colours]][0] > 0; colours++) {
            long[] sum = sums[buckets[colours]];
            red[colours] = (byte) (sum[1] / sum[0]);
            green[colours] = (byte) (sum[2] / sum[0]);
            blue[colours] = (byte) (sum[3] / sum[0]);
        }
        byte[] nearest = new byte[32768];
        for (int key = 0; key < 32768; key++) {
            int r = (key >> 10) << 3 | 4, g = ((key >> 5) & 31) << 3 | 4, b = (key & 31) << 3 | 4;
            int best = 0, bestDistance = Integer.MAX_VALUE;
            for (int c = 0; c < colours; c++) {
                int dr = r - (red[c] & 255), dg = g - (green[c] & 255), db = b - (blue[c] & 255);
                int distance = dr * dr + dg * dg + db * db;
                if (distance < bestDistance) {
                    best = c;
                    bestDistance = distance;
                }
            }
            nearest[key] = (byte) best;
        }
        java.awt.image.IndexColorModel model =
            new java.awt.image.IndexColorModel(8, colours, red, green, blue);
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_INDEXED, model);
        java.awt.image.WritableRaster raster = out.getRaster();
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int rgb = image.getRGB(x, y);
                int key = ((rgb >> 19) & 31) << 10 | ((rgb >> 11) & 31) << 5 | (rgb >> 3) & 31;
                raster.setSample(x, y, 0, nearest[key] & 255);
            }
        return out;
    }

    interface Probe<T> { T get() throws Exception; }

    /** Polls `probe` until it gives a value (60 s at most). */
    static <T> T waitFor(Probe<T> probe, String what) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            T value = probe.get();
            if (value != null)
                return value;
            if (System.currentTimeMillis() > deadline)
                throw new RuntimeException("waited 60 s for " + what);
            Thread.sleep(100);
        }
    }

    /** The first component under `root` of type `type` (with text `text` if not null). */
    static <T extends Component> T find(Component root, Class<T> type, String text) {
        if (type.isInstance(root)
            && (text == null || (root instanceof AbstractButton && text.equals(((AbstractButton) root).getText()))))
            return type.cast(root);
        if (root instanceof Container)
            for (Component child : ((Container) root).getComponents()) {
                T found = find(child, type, text);
                if (found != null)
                    return found;
            }
        return null;
    }
}
