import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Aws, type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { OAuthScope, type UserPoolClient, type UserPoolDomain } from 'aws-cdk-lib/aws-cognito';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildConsole, contentSecurityPolicy, HSTS_MAX_AGE_SECONDS } from '../../lib/console/index.js';
import type { Operators } from './operators.js';

export interface ConsoleProps {
  readonly stage: string;
  /** The ops API, reached through the distribution at /api/* (same origin: no CORS, no preflight). */
  readonly api: HttpApi;
  readonly operators: Operators;
  /** The pool's sign-in page prefix (`<prefix>.auth.<region>.amazoncognito.com`), unique in the region. */
  readonly signInDomainPrefix: string;
  /** The merchant's zone, in which the console shows times. */
  readonly timeZone: string;
}

/** Where the console calls the API on its own origin; the distribution's function strips it before the API. */
export const CONSOLE_API_PATH = '/api';

/**
 * Drops the `/api` prefix so the API sees the path it serves. The browser signed the request (SigV4) for the
 * API's own host and this path, and the distribution forwards every header but Host, so the signature holds.
 */
export const STRIP_API_PREFIX = `function handler(event) {
  var request = event.request;
  request.uri = request.uri.replace(/^\\/api(?=\\/|$)/, '') || '/';
  return request;
}`;

/**
 * The finance team's console (lib/console): its files in a private, encrypted bucket read only by the distribution
 * (origin access control), served with the security headers of lib/console/security-headers.ts; the API behind
 * /api/* on the same origin; a sign-in page and an app client of the operators' pool for it, trusted by the
 * identity pool, so the console's calls carry the person's group role like the CLI's.
 */
export class Console extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly client: UserPoolClient;
  readonly signInDomain: UserPoolDomain;
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleProps) {
    super(scope, id);
    const { region } = Stack.of(this);
    this.bucket = new Bucket(this, 'Files', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: true,
      // The files are built from the repository on every deploy: nothing here is kept only in the bucket.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "The bucket holds the console's static files, built from the repository; every action the console takes is an API call, logged with its caller in the API access log.",
    });

    const signIn = props.operators.userPool;
    this.signInDomain = signIn.addDomain('ConsoleSignIn', {
      cognitoDomain: { domainPrefix: props.signInDomainPrefix },
    });
    const apiDomain = `${props.api.apiId}.execute-api.${region}.${Aws.URL_SUFFIX}`;
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: `payouts console ${props.stage}: CSP, HSTS, no framing`,
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: contentSecurityPolicy({
            connect: [
              `https://cognito-identity.${region}.amazonaws.com`,
              `https://${props.signInDomainPrefix}.auth.${region}.amazoncognito.com`,
            ],
          }),
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS),
          includeSubdomains: true,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });
    const stripApiPrefix = new EdgeFunction(this, 'StripApiPrefix', {
      code: FunctionCode.fromInline(STRIP_API_PREFIX),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'console: /api/* to the ops API paths',
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `payouts console ${props.stage}`,
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      },
      additionalBehaviors: {
        [`${CONSOLE_API_PATH}/*`]: {
          origin: new HttpOrigin(apiDomain, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Every answer is the caller's own: never cached, every header (the signature's) forwarded but Host.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: headers,
          functionAssociations: [{ function: stripApiPrefix, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    for (const [rule, reason] of [
      [
        'AwsSolutions-CFR1',
        'Operators may work from anywhere; every call needs a signed-in person with MFA.',
      ],
      [
        'AwsSolutions-CFR2',
        'The console is static files; the API behind it refuses every unsigned request (IAM) and is throttled at its stage.',
      ],
      [
        'AwsSolutions-CFR3',
        'Static files only: every action is an API call, logged with its caller in the API access log.',
      ],
      [
        'AwsSolutions-CFR4',
        "The distribution's default certificate (*.cloudfront.net) allows TLS 1.2 and up for HTTPS viewers; a custom domain with TLSv1.2_2021 is a deployer's choice (docs/console.md).",
      ],
    ] as const) {
      Validations.of(this.distribution).acknowledge({ id: rule, reason });
    }

    this.client = signIn.addClient('Console', {
      userPoolClientName: 'payouts-console',
      generateSecret: false,
      authFlows: { userSrp: true },
      preventUserExistenceErrors: true,
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [`${this.url}/`],
        logoutUrls: [`${this.url}/`],
      },
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
    });
    props.operators.trustClient(this.client, 'console');

    const config = {
      apiUrl: CONSOLE_API_PATH,
      timeZone: props.timeZone,
      signIn: {
        mode: 'hosted',
        region,
        domain: `https://${props.signInDomainPrefix}.auth.${region}.amazoncognito.com`,
        clientId: this.client.userPoolClientId,
        redirectUri: `${this.url}/`,
        identityPoolId: props.operators.identityPool.ref,
        userPoolProviderName: signIn.userPoolProviderName,
        api: { host: apiDomain, pathPrefix: CONSOLE_API_PATH },
      },
    };
    const deployment = new BucketDeployment(this, 'Deploy', {
      sources: [Source.asset(builtConsoleDir()), Source.jsonData('config.json', config)],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
    });
    // The copying function is a singleton of the stack's (one for every BucketDeployment of this memory size).
    const copier = Stack.of(this).node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    const bucketArn = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    const copying =
      "CDK's BucketDeployment copies the built files from the CDK assets bucket into this bucket and invalidates this distribution, at deploy time only";
    for (const scope of [deployment, ...(copier ? [copier] : [])]) {
      Validations.of(scope).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: `${copying}: its logs through the basic execution role.`,
        },
        ...[
          'Action::s3:GetObject*',
          'Action::s3:GetBucket*',
          'Action::s3:List*',
          'Action::s3:DeleteObject*',
          'Action::s3:Abort*',
          'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
          `Resource::<${bucketArn}.Arn>/*`,
          // CloudFront's CreateInvalidation takes no resource narrower than *.
          'Resource::*',
        ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: `${copying}.` })),
        { id: 'AwsSolutions-L1', reason: `${copying}; CDK picks the function's runtime.` },
      );
    }
  }
}

/** The console's files, built now into a fresh folder the asset copies (content-hashed: a rebuild of the same
 * source is the same asset). */
function builtConsoleDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payouts-console-'));
  for (const [name, file] of buildConsole()) writeFileSync(join(dir, name), file.body);
  return dir;
}
