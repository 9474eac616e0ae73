#define REWRITTEN_V2
#include "rewritten.h"
