#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
