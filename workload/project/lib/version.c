#include "tiny.h"
#include "version.h" /* generated from VERSION */

const char *tiny_version(void)
{
    return TINY_VERSION;
}
