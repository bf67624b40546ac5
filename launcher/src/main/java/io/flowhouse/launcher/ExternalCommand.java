// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;

/**
 * A sub-command implemented in another module, found by class name at run time: a {@code public
 * static int run(String[] args, PrintStream out, PrintStream err)} or {@code public static int
 * run(String[] args)}. The launcher links every module, but a module that has not been written or
 * built yet must not break the others, so the class is looked up by reflection and a missing one is
 * reported plainly (exit code {@value Command#EXIT_NOT_BUILT}), never faked.
 */
public final class ExternalCommand implements Command {

    private final String name;
    private final String summary;
    private final String className;
    private final String module;

    public ExternalCommand(String name, String summary, String className, String module) {
        this.name = name;
        this.summary = summary;
        this.className = className;
        this.module = module;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String summary() {
        return summary;
    }

    public String className() {
        return className;
    }

    /** True when the implementing class and a run method are on the class path. */
    public boolean isAvailable() {
        return findRunMethod() != null;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Method method = findRunMethod();
        if (method == null) {
            err.printf(
                    "flowhouse %s: not built yet: %s (module %s) is not on the class path%n"
                            + "  build it with: mvn -B -ntp install -DskipTests -pl %s -am%n",
                    name, className, module, module);
            return EXIT_NOT_BUILT;
        }
        String[] argv = args.toArray(new String[0]);
        try {
            Object result =
                    method.getParameterCount() == 3
                            ? method.invoke(null, argv, out, err)
                            : method.invoke(null, (Object) argv);
            return (Integer) result;
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    private Method findRunMethod() {
        Class<?> type;
        try {
            type = Class.forName(className, false, ExternalCommand.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        for (Class<?>[] signature :
                List.of(
                        new Class<?>[] {String[].class, PrintStream.class, PrintStream.class},
                        new Class<?>[] {String[].class})) {
            try {
                Method method = type.getMethod("run", signature);
                if (Modifier.isStatic(method.getModifiers())
                        && method.getReturnType() == int.class) {
                    return method;
                }
            } catch (NoSuchMethodException e) {
                // try the next signature
            }
        }
        return null;
    }
}
