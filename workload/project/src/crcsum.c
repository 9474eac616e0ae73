/* crcsum [FILE...]: CRC-32 and size of each file, like cksum -a crc32b. */
#include <string.h>

#include "tiny.h"

int main(int argc, char **argv)
{
    int status = 0;
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("crcsum (libtiny %s)\n", tiny_version());
        return 0;
    }
    for (int i = 1; i < argc || i == 1; i++) {
        const char *path = i < argc ? argv[i] : "-";
        struct strbuf data;
        sb_init(&data);
        if (read_file(path, &data)) {
            fprintf(stderr, "crcsum: cannot read %s\n", path);
            status = 1;
        } else {
            char hex[9];
            fmt_hex32(hex, crc32_update(0, data.buf, data.len));
            printf("%s %zu %s\n", hex, data.len, path);
        }
        sb_free(&data);
    }
    return status;
}
