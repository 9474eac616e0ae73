#include "rewritten.h"
