#include "CNSE.h"
