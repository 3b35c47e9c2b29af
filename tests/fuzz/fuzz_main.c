/* fuzz_main.c - runs a fuzz harness without libFuzzer: every file named on
 * the command line (or every file in a directory named) once, as libFuzzer
 * does with file arguments. The regression inputs run this way in every
 * build, sanitizers or not. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_one(const char *path)
{
    gchar *data;
    gsize len;
    GError *err = NULL;
    if (!g_file_get_contents(path, &data, &len, &err)) {
        fprintf(stderr, "%s\n", err->message);
        g_error_free(err);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    g_free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0, n = 0;
    for (int i = 1; i < argc; i++) {
        if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            GDir *d = g_dir_open(argv[i], 0, NULL);
            const char *name;
            while (d && (name = g_dir_read_name(d))) {
                char *p = g_build_filename(argv[i], name, NULL);
                if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) {
                    bad |= run_one(p);
                    n++;
                }
                g_free(p);
            }
            if (d)
                g_dir_close(d);
        } else {
            bad |= run_one(argv[i]);
            n++;
        }
    }
    printf("%d inputs run\n", n);
    return bad;
}
