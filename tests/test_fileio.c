/* Tests of whole-file reads and atomic writes (util/fileio.h): contents, size
 * limits for files and pipes, modes, and failures that must leave nothing
 * behind. Each case works in a fresh directory under $TMPDIR (or /tmp). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "util/fileio.h"

static void make_tmpdir(char *out, size_t cap) {
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0') base = "/tmp";
    snprintf(out, cap, "%s/zkp_fileio_XXXXXX", base);
    ASSERT_MSG(mkdtemp(out) != NULL, "mkdtemp(%s): %s", out, strerror(errno));
}

/* Entries in dir other than . and .. */
static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    ASSERT(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static void path_in(char *out, size_t cap, const char *dir, const char *name) {
    int n = snprintf(out, cap, "%s/%s", dir, name);
    ASSERT(n > 0 && (size_t)n < cap);
}

static void write_plain(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    ASSERT(f != NULL);
    ASSERT_EQ_U64(fwrite(data, 1, len, f), len);
    ASSERT(fclose(f) == 0);
}

static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        path_in(p, sizeof p, dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static mode_t get_umask(void) {
    mode_t m = umask(022);
    umask(m);
    return m;
}

TEST_CASE(fileio_write_then_read) {
    char dir[512], path[1024];
    make_tmpdir(dir, sizeof dir);
    path_in(path, sizeof path, dir, "out.json");
    static const char text[] = "{\n \"a\": 1\n}";
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_write_file_atomic(path, text, strlen(text), &d));
    ASSERT_EQ_INT(count_entries(dir), 1); /* no temporary left */

    char *buf = NULL;
    size_t len = 0;
    ASSERT_OK(zkp_read_file(path, 1 << 20, &buf, &len, &d));
    ASSERT_EQ_U64(len, strlen(text));
    ASSERT_MEM_EQ(buf, text, len);
    ASSERT(buf[len] == '\0');
    free(buf);

    /* Mode: 0644 less the umask, as a new file from fopen would get. */
    mode_t old = umask(027);
    ASSERT_OK(zkp_write_file_atomic(path, "x", 1, &d));
    umask(old);
    struct stat st;
    ASSERT(stat(path, &st) == 0);
    ASSERT_EQ_U64(st.st_mode & 0777, 0640);
    ASSERT_OK(zkp_write_file_atomic(path, "y", 1, &d));
    ASSERT(stat(path, &st) == 0);
    ASSERT_EQ_U64(st.st_mode & 0777, 0644 & ~get_umask());

    /* Replacing: the new contents, whatever the old length. */
    char big[10000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    ASSERT_OK(zkp_write_file_atomic(path, big, sizeof big, &d));
    ASSERT_OK(zkp_write_file_atomic(path, "short", 5, &d));
    ASSERT_OK(zkp_read_file(path, 1 << 20, &buf, &len, &d));
    ASSERT_EQ_U64(len, 5);
    ASSERT_MEM_EQ(buf, "short", 5);
    free(buf);

    /* Empty file: a valid, NUL-terminated empty buffer. */
    ASSERT_OK(zkp_write_file_atomic(path, NULL, 0, &d));
    ASSERT_OK(zkp_read_file(path, 0, &buf, &len, &d));
    ASSERT(buf != NULL && len == 0 && buf[0] == '\0');
    free(buf);
    ASSERT_EQ_INT(count_entries(dir), 1);

    /* A relative path (no directory part) writes into the current directory. */
    char cwd[1024];
    ASSERT(getcwd(cwd, sizeof cwd) != NULL);
    ASSERT(chdir(dir) == 0);
    zkpipe_status st_rel = zkp_write_file_atomic("rel.txt", "r", 1, &d);
    ASSERT(chdir(cwd) == 0);
    ASSERT_OK(st_rel);
    path_in(path, sizeof path, dir, "rel.txt");
    ASSERT_OK(zkp_read_file(path, 10, &buf, &len, &d));
    ASSERT(len == 1 && buf[0] == 'r');
    free(buf);
    ASSERT_EQ_INT(count_entries(dir), 2);
    remove_tree(dir);
}

TEST_CASE(fileio_read_limits_and_errors) {
    char dir[512], path[1024];
    make_tmpdir(dir, sizeof dir);
    path_in(path, sizeof path, dir, "hundred");
    char data[100];
    memset(data, 'z', sizeof data);
    write_plain(path, data, sizeof data);

    char *buf = (char *)1;
    size_t len = 7;
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_read_file(path, 99, &buf, &len, &d), ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT(buf == NULL && len == 0);
    ASSERT_MSG(strstr(d.msg, "100") && strstr(d.msg, "99") && strstr(d.msg, path), "message: %s",
               d.msg);
    ASSERT_OK(zkp_read_file(path, 100, &buf, &len, &d));
    ASSERT_EQ_U64(len, 100);
    free(buf);

    char missing[1024];
    path_in(missing, sizeof missing, dir, "missing");
    ASSERT_EQ_STATUS(zkp_read_file(missing, 100, &buf, &len, &d), ZKPIPE_ERR_IO);
    ASSERT(buf == NULL && len == 0);
    ASSERT_MSG(strstr(d.msg, missing) && strstr(d.msg, strerror(ENOENT)), "message: %s", d.msg);

    ASSERT_EQ_STATUS(zkp_read_file(dir, 100, &buf, &len, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d.msg, dir) != NULL, "message: %s", d.msg);

    ASSERT_EQ_STATUS(zkp_read_file(NULL, 100, &buf, &len, NULL), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_read_file(path, 100, NULL, &len, NULL), ZKPIPE_ERR_INVALID_ARGUMENT);
    remove_tree(dir);
}

/* A pipe has no size up front: the limit applies while reading. */
static void read_fifo(const char *fifo, size_t send, size_t max_len, zkpipe_status want) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen(fifo, "wb");
        if (f == NULL) _exit(1);
        for (size_t i = 0; i < send; i++)
            if (fputc('q', f) == EOF) _exit(0); /* the reader stopped early */
        fclose(f);
        _exit(0);
    }
    char *buf = NULL;
    size_t len = 0;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_read_file(fifo, max_len, &buf, &len, &d);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_MSG(st == want, "pipe of %zu bytes, limit %zu: %s (%s)", send, max_len,
               zkpipe_status_name(st), d.msg);
    if (st == ZKPIPE_OK) {
        ASSERT_EQ_U64(len, send);
        for (size_t i = 0; i < len; i++) ASSERT(buf[i] == 'q');
        ASSERT(buf[len] == '\0');
    }
    free(buf);
}

TEST_CASE(fileio_read_pipe_limits) {
    char dir[512], fifo[1024];
    make_tmpdir(dir, sizeof dir);
    path_in(fifo, sizeof fifo, dir, "fifo");
    ASSERT(mkfifo(fifo, 0600) == 0);
    signal(SIGPIPE, SIG_IGN);
    read_fifo(fifo, 20000, 100000, ZKPIPE_OK);
    read_fifo(fifo, 20000, 20000, ZKPIPE_OK);
    read_fifo(fifo, 20001, 20000, ZKPIPE_ERR_OUT_OF_RANGE);
    read_fifo(fifo, 0, 10, ZKPIPE_OK);
    remove_tree(dir);
}

TEST_CASE(fileio_write_failures_leave_nothing) {
    char dir[512], path[1024];
    make_tmpdir(dir, sizeof dir);

    /* Into a directory that does not exist: an error naming the path, and
     * nothing created anywhere. */
    path_in(path, sizeof path, dir, "nope/out.json");
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_write_file_atomic(path, "x", 1, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d.msg, path) && strstr(d.msg, strerror(ENOENT)), "message: %s", d.msg);
    ASSERT_EQ_INT(count_entries(dir), 0);

    /* Over a non-empty directory: the rename fails after the temporary was
     * written; the temporary goes, the directory stays as it was. */
    char sub[1024], inner[1024];
    path_in(sub, sizeof sub, dir, "target");
    ASSERT(mkdir(sub, 0755) == 0);
    path_in(inner, sizeof inner, sub, "keep");
    write_plain(inner, "k", 1);
    ASSERT_EQ_STATUS(zkp_write_file_atomic(sub, "new", 3, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d.msg, sub) != NULL, "message: %s", d.msg);
    ASSERT_EQ_INT(count_entries(dir), 1);
    ASSERT_EQ_INT(count_entries(sub), 1);

    /* An existing file is untouched when the write cannot happen: a read-only
     * directory refuses the temporary (skipped as root, who may write anyway). */
    char ro[1024], kept[1024];
    path_in(ro, sizeof ro, dir, "ro");
    ASSERT(mkdir(ro, 0755) == 0);
    path_in(kept, sizeof kept, ro, "file");
    write_plain(kept, "old", 3);
    ASSERT(chmod(ro, 0555) == 0);
    if (geteuid() != 0) {
        ASSERT_EQ_STATUS(zkp_write_file_atomic(kept, "new", 3, &d), ZKPIPE_ERR_IO);
        char *buf;
        size_t len;
        ASSERT_OK(zkp_read_file(kept, 100, &buf, &len, NULL));
        ASSERT(len == 3 && memcmp(buf, "old", 3) == 0);
        free(buf);
        ASSERT_EQ_INT(count_entries(ro), 1);
    }
    ASSERT(chmod(ro, 0755) == 0);

    ASSERT_EQ_STATUS(zkp_write_file_atomic("", "x", 1, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_write_file_atomic("dir/", "x", 1, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_write_file_atomic(NULL, "x", 1, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_write_file_atomic(path, NULL, 1, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    remove_tree(dir);
}
