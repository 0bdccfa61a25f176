/* Tests of whole-file reads and atomic writes (util/fileio.h): contents, size
 * limits for files and pipes, modes, and failures that must leave nothing
 * behind. Each case works in a fresh directory under $TMPDIR (or /tmp). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

    /* Mode: a new file gets 0644 less the umask, as a new file from fopen
     * would; a replaced one keeps its own. */
    char fresh[1024];
    path_in(fresh, sizeof fresh, dir, "fresh.json");
    mode_t old = umask(027);
    ASSERT_OK(zkp_write_file_atomic(fresh, "x", 1, &d));
    umask(old);
    struct stat st;
    ASSERT(stat(fresh, &st) == 0);
    ASSERT_EQ_U64(st.st_mode & 0777, 0640);
    ASSERT_OK(zkp_write_file_atomic(fresh, "y", 1, &d));
    ASSERT(stat(fresh, &st) == 0);
    ASSERT_EQ_U64(st.st_mode & 0777, 0640);
    ASSERT(unlink(fresh) == 0);
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

/* ------------------------------------------------------------------------ */
/* Outputs (zkp_output_*): special files, links, names, modes, pairs. */

/* Reads a whole small file into a static buffer (NUL-terminated). */
static const char *slurp(const char *path) {
    static char buf[4096];
    FILE *f = fopen(path, "rb");
    ASSERT_MSG(f != NULL, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static mode_t mode_of(const char *path) {
    struct stat st;
    ASSERT_MSG(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
    return st.st_mode;
}

TEST_CASE(fileio_output_writes_devices_in_place) {
    char dir[512], path[1024];
    make_tmpdir(dir, sizeof dir);
    zkp_diag d = {{0}};

    /* A FIFO is written, not replaced: a reader gets the bytes and the FIFO
     * is still a FIFO afterwards. */
    path_in(path, sizeof path, dir, "fifo");
    ASSERT(mkfifo(path, 0600) == 0);
    int pfd[2];
    ASSERT(pipe(pfd) == 0);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        FILE *f = fopen(path, "rb");
        if (f == NULL) _exit(1);
        char got[64];
        size_t n = fread(got, 1, sizeof got, f);
        fclose(f);
        _exit(write(pfd[1], got, n) == (ssize_t)n ? 0 : 1);
    }
    close(pfd[1]);
    zkpipe_status st = zkp_write_file_atomic(path, "through the fifo", 16, &d);
    char got[64] = "";
    ssize_t n = read(pfd[0], got, sizeof got - 1);
    close(pfd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_MSG(st == ZKPIPE_OK, "FIFO: %s", d.msg);
    ASSERT_EQ_INT(n, 16);
    ASSERT(memcmp(got, "through the fifo", 16) == 0);
    ASSERT(S_ISFIFO(mode_of(path)));
    ASSERT_EQ_INT(count_entries(dir), 1);

    /* A directory and a block device are refused before anything is
     * written. */
    char sub[1024];
    path_in(sub, sizeof sub, dir, "sub");
    ASSERT(mkdir(sub, 0755) == 0);
    zkp_output o;
    ASSERT_EQ_STATUS(zkp_output_open(&o, sub, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d.msg, strerror(EISDIR)) != NULL, "message: %s", d.msg);

    /* Character devices: made here, never the system's own /dev/null, so a
     * regression cannot replace a real device. Making one needs root. */
    char null_dev[1024], full_dev[1024], blk[1024];
    path_in(null_dev, sizeof null_dev, dir, "null");
    path_in(full_dev, sizeof full_dev, dir, "full");
    path_in(blk, sizeof blk, dir, "blk");
    if (mknod(null_dev, S_IFCHR | 0666, makedev(1, 3)) != 0 ||
        mknod(full_dev, S_IFCHR | 0666, makedev(1, 7)) != 0) {
        printf("  (skipped the character-device part: mknod: %s; it needs root)\n", strerror(errno));
        remove_tree(dir);
        return;
    }
    struct stat before, after;
    ASSERT(stat(null_dev, &before) == 0);
    ASSERT_OK(zkp_write_file_atomic(null_dev, "discarded", 9, &d));
    ASSERT(lstat(null_dev, &after) == 0);
    ASSERT(S_ISCHR(after.st_mode) && after.st_ino == before.st_ino && after.st_rdev == before.st_rdev);
    ASSERT_OK(zkp_output_open(&o, null_dev, &d));
    ASSERT_EQ_INT(o.kind, ZKP_OUTPUT_DIRECT);
    zkp_output_close(&o);
    /* /dev/full: the write fails (ENOSPC) and the device stays. */
    ASSERT_EQ_STATUS(zkp_write_file_atomic(full_dev, "x", 1, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d.msg, strerror(ENOSPC)) != NULL, "message: %s", d.msg);
    ASSERT(S_ISCHR(mode_of(full_dev)));
    if (mknod(blk, S_IFBLK | 0600, makedev(7, 0)) == 0) {
        ASSERT_EQ_STATUS(zkp_output_open(&o, blk, &d), ZKPIPE_ERR_UNSUPPORTED);
        ASSERT(S_ISBLK(mode_of(blk)));
    }
    ASSERT_EQ_INT(count_entries(dir), 4 + (access(blk, F_OK) == 0));
    remove_tree(dir);
}

TEST_CASE(fileio_output_follows_symlinks) {
    char dir[512], real[1024], link_path[1024], chain[1024], dangling[1024], made[1024];
    make_tmpdir(dir, sizeof dir);
    zkp_diag d = {{0}};
    path_in(real, sizeof real, dir, "real.json");
    path_in(link_path, sizeof link_path, dir, "link.json");
    path_in(chain, sizeof chain, dir, "chain.json");
    write_plain(real, "old", 3);
    ASSERT(chmod(real, 0600) == 0);
    ASSERT(symlink("real.json", link_path) == 0); /* relative to the link's directory */
    ASSERT(symlink(link_path, chain) == 0);       /* absolute, to a link */

    ASSERT_OK(zkp_write_file_atomic(chain, "new", 3, &d));
    ASSERT(S_ISLNK(mode_of(chain)) && S_ISLNK(mode_of(link_path)));
    ASSERT_STR_EQ(slurp(real), "new");
    ASSERT_EQ_U64(mode_of(real) & 0777, 0600);
    ASSERT_EQ_INT(count_entries(dir), 3);

    /* A link to a file not made yet: the file is made where it points. */
    path_in(dangling, sizeof dangling, dir, "dangling.json");
    path_in(made, sizeof made, dir, "made.json");
    ASSERT(symlink("made.json", dangling) == 0);
    ASSERT_OK(zkp_write_file_atomic(dangling, "made", 4, &d));
    ASSERT(S_ISLNK(mode_of(dangling)) && S_ISREG(mode_of(made)));
    ASSERT_STR_EQ(slurp(made), "made");

    /* A loop is an error, not a hang. */
    char loop_a[1024], loop_b[1024];
    path_in(loop_a, sizeof loop_a, dir, "loop_a");
    path_in(loop_b, sizeof loop_b, dir, "loop_b");
    ASSERT(symlink("loop_b", loop_a) == 0 && symlink("loop_a", loop_b) == 0);
    ASSERT_EQ_STATUS(zkp_write_file_atomic(loop_a, "x", 1, &d), ZKPIPE_ERR_IO);
    ASSERT_EQ_INT(count_entries(dir), 7);
    remove_tree(dir);
}

/* Target names up to the file system's limit work: the temporary's name
 * is shortened to fit, for new files and for replaced ones (which also
 * take a backup name when a second output follows). */
TEST_CASE(fileio_output_long_names) {
    char dir[512];
    make_tmpdir(dir, sizeof dir);
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max < 16 || name_max > 255) name_max = 255;
    zkp_diag d = {{0}};
    for (long len = name_max - 8; len <= name_max; len++) {
        char name[256], path[1024], other[1024];
        memset(name, 'a' + (int)(len % 26), (size_t)len);
        name[len] = '\0';
        path_in(path, sizeof path, dir, name);
        ASSERT_MSG(zkp_write_file_atomic(path, "1", 1, &d) == ZKPIPE_OK, "%ld: %s", len, d.msg);
        ASSERT_MSG(zkp_write_file_atomic(path, "2", 1, &d) == ZKPIPE_OK, "%ld: %s", len, d.msg);
        ASSERT_STR_EQ(slurp(path), "2");
        /* Two long outputs replaced together. */
        name[0] = 'Z';
        path_in(other, sizeof other, dir, name);
        write_plain(other, "0", 1);
        zkp_output outs[2];
        ASSERT_OK(zkp_output_open(&outs[0], path, &d));
        ASSERT_OK(zkp_output_open(&outs[1], other, &d));
        ASSERT_OK(zkp_output_stage(&outs[0], "3", 1, &d));
        ASSERT_OK(zkp_output_stage(&outs[1], "4", 1, &d));
        ASSERT_MSG(zkp_output_commit(outs, 2, &d) == ZKPIPE_OK, "%ld: %s", len, d.msg);
        zkp_output_close(&outs[0]);
        zkp_output_close(&outs[1]);
        ASSERT_STR_EQ(slurp(path), "3");
        ASSERT_STR_EQ(slurp(other), "4");
    }
    ASSERT_EQ_INT(count_entries(dir), 2 * 9);
    /* Multi-byte characters are not cut in half in the temporary's name. */
    char utf[256] = "", upath[1024];
    while (strlen(utf) + 2 <= (size_t)name_max) strcat(utf, "\xc3\xa9");
    path_in(upath, sizeof upath, dir, utf);
    ASSERT_MSG(zkp_write_file_atomic(upath, "u", 1, &d) == ZKPIPE_OK, "%s", d.msg);
    remove_tree(dir);
}

TEST_CASE(fileio_output_keeps_mode) {
    char dir[512], path[1024];
    make_tmpdir(dir, sizeof dir);
    zkp_diag d = {{0}};
    path_in(path, sizeof path, dir, "out.json");
    static const mode_t modes[] = {0600, 0640, 0444, 0755, 0604};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        write_plain(path, "old", 3);
        ASSERT(chmod(path, modes[i]) == 0);
        ASSERT_OK(zkp_write_file_atomic(path, "new", 3, &d));
        ASSERT_EQ_U64(mode_of(path) & 07777, modes[i]);
        ASSERT_STR_EQ(slurp(path), "new");
        ASSERT(unlink(path) == 0);
    }
    remove_tree(dir);
}

TEST_CASE(fileio_output_identity) {
    char dir[512], a[1024], hard[1024], sym[1024], fresh[1024], spelt[1024], cwd[1024];
    make_tmpdir(dir, sizeof dir);
    zkp_diag d = {{0}};
    path_in(a, sizeof a, dir, "a.zkey");
    path_in(hard, sizeof hard, dir, "hard.zkey");
    path_in(sym, sizeof sym, dir, "sym.zkey");
    path_in(fresh, sizeof fresh, dir, "fresh.json");
    write_plain(a, "key", 3);
    ASSERT(link(a, hard) == 0);
    ASSERT(symlink("a.zkey", sym) == 0);
    snprintf(spelt, sizeof spelt, "%s/./../%s/a.zkey", dir, strrchr(dir, '/') + 1);

    zkp_output o, p;
    /* The input under each of its names, seen from each name of the output. */
    const char *names[] = {a, hard, sym, spelt};
    for (size_t i = 0; i < 4; i++) {
        ASSERT_OK(zkp_output_open(&o, names[i], &d));
        for (size_t j = 0; j < 4; j++)
            ASSERT_MSG(zkp_output_is(&o, names[j]), "output %s, input %s", names[i], names[j]);
        zkp_output_close(&o);
    }
    ASSERT(getcwd(cwd, sizeof cwd) != NULL);
    ASSERT(chdir(dir) == 0);
    ASSERT_OK(zkp_output_open(&o, "a.zkey", &d));
    ASSERT(chdir(cwd) == 0);
    ASSERT(zkp_output_is(&o, a));
    ASSERT(!zkp_output_is(&o, fresh));
    zkp_output_close(&o);

    /* Outputs not made yet: the same when they resolve to the same path. */
    char fresh2[1024];
    snprintf(fresh2, sizeof fresh2, "%s/../%s/fresh.json", dir, strrchr(dir, '/') + 1);
    ASSERT_OK(zkp_output_open(&o, fresh, &d));
    ASSERT_OK(zkp_output_open(&p, fresh2, &d));
    ASSERT_EQ_INT(o.kind, ZKP_OUTPUT_NEW);
    ASSERT(zkp_output_same(&o, &p));
    ASSERT(zkp_output_is(&o, fresh2));
    ASSERT(!zkp_output_is(&o, a));
    zkp_output_close(&p);
    ASSERT_OK(zkp_output_open(&p, a, &d));
    ASSERT(!zkp_output_same(&o, &p));
    zkp_output_close(&o);
    ASSERT_OK(zkp_output_open(&o, hard, &d));
    ASSERT(zkp_output_same(&o, &p));
    zkp_output_close(&o);
    zkp_output_close(&p);
    ASSERT_EQ_INT(count_entries(dir), 3);
    remove_tree(dir);
}

/* One file of a directory as the tests see it. */
typedef struct {
    char name[64];
    char data[64];
    mode_t mode;
} snap_entry;

typedef struct {
    snap_entry e[16];
    int n;
} snap;

static int snap_cmp(const void *a, const void *b) {
    return strcmp(((const snap_entry *)a)->name, ((const snap_entry *)b)->name);
}

static void take_snap(const char *dir, snap *s) {
    memset(s, 0, sizeof *s);
    DIR *dh = opendir(dir);
    ASSERT(dh != NULL);
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        ASSERT(s->n < 16 && strlen(e->d_name) < sizeof s->e[0].name);
        snap_entry *x = &s->e[s->n++];
        memcpy(x->name, e->d_name, strlen(e->d_name) + 1);
        char p[1024];
        path_in(p, sizeof p, dir, e->d_name);
        x->mode = mode_of(p);
        if (S_ISREG(x->mode)) {
            const char *t = slurp(p);
            size_t tl = strlen(t);
            ASSERT(tl < sizeof x->data);
            memcpy(x->data, t, tl + 1);
        }
    }
    closedir(dh);
    qsort(s->e, (size_t)s->n, sizeof s->e[0], snap_cmp);
}

static void assert_snap_eq(const snap *a, const snap *b, const char *when) {
    ASSERT_MSG(a->n == b->n, "%s: %d files, expected %d (first: %s)", when, b->n, a->n,
               b->n ? b->e[0].name : "-");
    for (int i = 0; i < a->n; i++) {
        ASSERT_MSG(!strcmp(a->e[i].name, b->e[i].name), "%s: %s, expected %s", when, b->e[i].name,
                   a->e[i].name);
        ASSERT_MSG(!strcmp(a->e[i].data, b->e[i].data), "%s: %s holds \"%s\", expected \"%s\"",
                   when, a->e[i].name, b->e[i].data, a->e[i].data);
        ASSERT_MSG(a->e[i].mode == b->e[i].mode, "%s: %s has mode %o, expected %o", when,
                   a->e[i].name, (unsigned)b->e[i].mode, (unsigned)a->e[i].mode);
    }
}

/* Stages and commits texts[i] to names[i] in dir; the status. */
static zkpipe_status write_set(const char *dir, const char *const *names, const char *const *texts,
                               size_t n, zkp_diag *d) {
    zkp_output outs[4];
    memset(outs, 0, sizeof outs);
    zkpipe_status st = ZKPIPE_OK;
    for (size_t i = 0; i < n && st == ZKPIPE_OK; i++) {
        char p[1024];
        path_in(p, sizeof p, dir, names[i]);
        st = zkp_output_open(&outs[i], p, d);
    }
    for (size_t i = 0; i < n && st == ZKPIPE_OK; i++)
        st = zkp_output_stage(&outs[i], texts[i], strlen(texts[i]), d);
    if (st == ZKPIPE_OK) st = zkp_output_commit(outs, n, d);
    for (size_t i = 0; i < n; i++) zkp_output_close(&outs[i]);
    return st;
}

/* A failing second rename puts the first output back: the old contents of
 * a file that existed, nothing for one that did not. */
TEST_CASE(fileio_output_pair_all_or_nothing) {
    char dir[512], p0[1024], p1[1024];
    make_tmpdir(dir, sizeof dir);
    zkp_diag d = {{0}};
    path_in(p0, sizeof p0, dir, "proof.json");
    path_in(p1, sizeof p1, dir, "public.json");
    write_plain(p0, "old proof", 9);
    ASSERT(chmod(p0, 0600) == 0);
    for (int first_exists = 1; first_exists >= 0; first_exists--) {
        zkp_output outs[2];
        ASSERT_OK(zkp_output_open(&outs[0], p0, &d));
        ASSERT_OK(zkp_output_open(&outs[1], p1, &d));
        ASSERT_OK(zkp_output_stage(&outs[0], "new proof", 9, &d));
        ASSERT_OK(zkp_output_stage(&outs[1], "new public", 10, &d));
        /* The second target turns into a non-empty directory before the
         * commit: its rename must fail. */
        char inner[1024];
        ASSERT(mkdir(p1, 0755) == 0);
        path_in(inner, sizeof inner, p1, "x");
        write_plain(inner, "x", 1);
        ASSERT_EQ_STATUS(zkp_output_commit(outs, 2, &d), ZKPIPE_ERR_IO);
        ASSERT_MSG(strstr(d.msg, p1) != NULL, "message: %s", d.msg);
        zkp_output_close(&outs[0]);
        zkp_output_close(&outs[1]);
        if (first_exists) {
            ASSERT_STR_EQ(slurp(p0), "old proof");
            ASSERT_EQ_U64(mode_of(p0) & 0777, 0600);
        } else {
            ASSERT_MSG(access(p0, F_OK) != 0, "a new first output was left after the failure");
        }
        ASSERT_EQ_INT(count_entries(dir), 1 + first_exists);
        ASSERT(unlink(inner) == 0 && rmdir(p1) == 0);
        if (first_exists) ASSERT(unlink(p0) == 0);
    }
    remove_tree(dir);
}

/* Every system call of staging and committing fails in turn (with EIO, and
 * with EPERM, which for the backup link means "no hard links here"): after
 * each failure the directory is exactly as it was, and once the fault falls
 * past the last call the write succeeds whole. Pairs with an existing file
 * first, a new file first, and an in-place output among them. */
TEST_CASE(fileio_output_fault_injection) {
    char dir[512];
    make_tmpdir(dir, sizeof dir);
    static const char *const names[3] = {"proof.json", "public.json", "extra.json"};
    static const char *const texts[3] = {"new proof", "new public", "new extra"};
    static const int errs[2] = {EIO, EPERM};
    for (int layout = 0; layout < 3; layout++) {
        for (int ei = 0; ei < 2; ei++) {
            unsigned step;
            for (step = 1; step < 200; step++) {
                /* layout 0: the first output exists (0600), the second is new;
                 * 1: both exist; 2: three, the middle one new. */
                char p[1024];
                remove_tree(dir);
                ASSERT(mkdir(dir, 0700) == 0);
                path_in(p, sizeof p, dir, names[0]);
                write_plain(p, "old proof", 9);
                ASSERT(chmod(p, 0600) == 0);
                if (layout == 1) {
                    path_in(p, sizeof p, dir, names[1]);
                    write_plain(p, "old public", 10);
                    ASSERT(chmod(p, 0640) == 0);
                }
                if (layout == 2) {
                    path_in(p, sizeof p, dir, names[2]);
                    write_plain(p, "old extra", 9);
                }
                size_t n = layout == 2 ? 3 : 2;
                snap before, after;
                take_snap(dir, &before);
                zkp_diag d = {{0}};
                zkp_fileio_test_fault(step, errs[ei]);
                zkpipe_status st = write_set(dir, names, texts, n, &d);
                int fired = zkp_fileio_test_fault_fired();
                zkp_fileio_test_fault(0, 0);
                take_snap(dir, &after);
                char when[96];
                snprintf(when, sizeof when, "layout %d, %s at step %u", layout,
                         errs[ei] == EIO ? "EIO" : "EPERM", step);
                if (!fired) {
                    ASSERT_MSG(st == ZKPIPE_OK, "%s: %s", when, d.msg);
                    ASSERT_EQ_INT(after.n, (int)n);
                    for (size_t i = 0; i < n; i++) {
                        path_in(p, sizeof p, dir, names[i]);
                        ASSERT_STR_EQ(slurp(p), texts[i]);
                    }
                    path_in(p, sizeof p, dir, names[0]);
                    ASSERT_EQ_U64(mode_of(p) & 0777, 0600);
                    break;
                }
                if (st == ZKPIPE_OK) {
                    /* The fault hit a step that has a fallback (EPERM on
                     * the backup link): the result must be whole anyway. */
                    ASSERT_MSG(errs[ei] == EPERM, "%s: succeeded through a fault", when);
                    ASSERT_EQ_INT(after.n, (int)n);
                    for (size_t i = 0; i < n; i++) {
                        path_in(p, sizeof p, dir, names[i]);
                        ASSERT_STR_EQ(slurp(p), texts[i]);
                    }
                    continue;
                }
                ASSERT_MSG(st == ZKPIPE_ERR_IO, "%s: %s", when, zkpipe_status_name(st));
                ASSERT_MSG(strstr(d.msg, strerror(errs[ei])) != NULL, "%s: message: %s", when,
                           d.msg);
                assert_snap_eq(&before, &after, when);
            }
            ASSERT_MSG(step < 200, "layout %d: the fault never stopped firing", layout);
            ASSERT_MSG(step > 8, "layout %d: only %u steps were counted", layout, step);
        }
    }
    remove_tree(dir);
}

/* An in-place output is written first at commit: a failure to write it
 * (a full device) stops the files from being replaced, and each failing
 * step leaves the file as it was. Needs root, to make the devices. */
TEST_CASE(fileio_output_direct_first) {
    char dir[512], file[1024], full_dev[1024], null_dev[1024];
    make_tmpdir(dir, sizeof dir);
    path_in(file, sizeof file, dir, "public.json");
    path_in(full_dev, sizeof full_dev, dir, "full");
    path_in(null_dev, sizeof null_dev, dir, "null");
    if (mknod(null_dev, S_IFCHR | 0666, makedev(1, 3)) != 0 ||
        mknod(full_dev, S_IFCHR | 0666, makedev(1, 7)) != 0) {
        printf("  (skipped: mknod: %s; making devices needs root)\n", strerror(errno));
        remove_tree(dir);
        return;
    }
    write_plain(file, "old", 3);
    zkp_diag d = {{0}};
    static const char *const full_pair[2] = {"public.json", "full"};
    static const char *const texts[2] = {"new", "bytes"};
    ASSERT_EQ_STATUS(write_set(dir, full_pair, texts, 2, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d.msg, strerror(ENOSPC)) != NULL, "message: %s", d.msg);
    ASSERT_STR_EQ(slurp(file), "old");
    ASSERT_EQ_INT(count_entries(dir), 3);

    static const char *const null_pair[2] = {"public.json", "null"};
    unsigned step;
    for (step = 1; step < 100; step++) {
        write_plain(file, "old", 3);
        zkp_fileio_test_fault(step, EIO);
        zkpipe_status st = write_set(dir, null_pair, texts, 2, &d);
        int fired = zkp_fileio_test_fault_fired();
        zkp_fileio_test_fault(0, 0);
        ASSERT_EQ_INT(count_entries(dir), 3);
        ASSERT(S_ISCHR(mode_of(null_dev)));
        if (!fired) {
            ASSERT_MSG(st == ZKPIPE_OK, "step %u: %s", step, d.msg);
            ASSERT_STR_EQ(slurp(file), "new");
            break;
        }
        ASSERT_EQ_STATUS(st, ZKPIPE_ERR_IO);
        ASSERT_STR_EQ(slurp(file), "old");
    }
    ASSERT(step > 4 && step < 100);
    remove_tree(dir);
}
