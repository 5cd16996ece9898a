/*
 * water_constants.h - the fixed constants of Water (WATER_SPEC.md section 2).
 *
 * Each is the double nearest to the decimal literal of the specification;
 * the names are the specification's, so formulas in the code can be checked
 * against it line by line. Only water_*.c files include this header.
 */
#ifndef MGS_WATER_CONSTANTS_H
#define MGS_WATER_CONSTANTS_H

/* 2.1 physical and control constants (cgs units unless stated) */
static const double TEMP = 298.0;          /* K */
static const double RHO = 0.9980;          /* g/cm^3 */
static const double UNITT = 1.0e-15;       /* s: internal time unit 1 fs */
static const double UNITL = 1.0e-8;        /* cm: internal length unit 1 A */
static const double UNITM = 1.6605655e-24; /* g: internal mass unit 1 amu */
static const double BOLTZ = 1.380662e-16;  /* erg/K */
static const double ROH = 0.9572;          /* equilibrium O-H bond (A) */
static const double ANGLE = 1.824218;      /* equilibrium H-O-H angle (rad) */
static const double OMAS = 15.99945;       /* amu */
static const double HMAS = 1.007825;       /* amu */
#define WATER_NATOMS 3                     /* atoms per molecule */
#define WTMOL (OMAS + 2.0 * HMAS)          /* molecular mass */
#define ROHI (1.0 / ROH)
#define ROHI2 (ROHI * ROHI)

/* 2.2 intramolecular force constants */
static const double FC11 = 0.512596, FC33 = 0.048098, FC12 = -0.005823, FC13 = 0.016452;
static const double FC111 = -0.57191, FC333 = -0.007636, FC112 = -0.001867, FC113 = -0.002047;
static const double FC123 = -0.03083, FC133 = -0.0094245;
static const double FC1111 = 0.8431, FC3333 = -0.00193, FC1112 = -0.0030, FC1122 = 0.0036;
static const double FC1113 = -0.012, FC1123 = 0.0060, FC1133 = -0.0048, FC1233 = 0.0211;
static const double FC1333 = 0.006263;

/* 2.3 MCY water-water potential */
static const double QQ = 0.07152158;
static const double A1 = 455.313100, B1 = 5.15271070; /* O-O repulsion */
static const double A2 = 0.27879839, B2 = 2.76084370; /* H-H repulsion */
static const double A3 = 0.60895706, B3 = 2.96189550; /* O-H repulsion */
static const double A4 = 0.11447336, B4 = 2.23326410; /* O-H attraction */
static const double CM = 0.45682590;                  /* M-site position */
#define AB1 (A1 * B1)
#define AB2 (A2 * B2)
#define AB3 (A3 * B3)
#define AB4 (A4 * B4)
#define C1 (1.0 - CM)
#define C2 (0.50 * CM)
#define QQ2 (2.00 * QQ)
#define QQ4 (2.00 * QQ2)

#endif /* MGS_WATER_CONSTANTS_H */
