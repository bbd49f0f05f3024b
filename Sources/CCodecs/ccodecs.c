#include "ccodecs.h"
